;;; action-lsp.el --- Eglot setup for action-lsp, the LLM transcript checker  -*- lexical-binding: t; -*-

;; Usage (see editors/README.md):
;;
;;   (add-to-list 'load-path "/path/to/action-lsp/editors/emacs")
;;   (require 'action-lsp)
;;   (add-hook 'markdown-mode-hook #'eglot-ensure)   ; and/or text-mode-hook
;;   (add-hook 'action-lsp-jsonl-mode-hook #'eglot-ensure)   ; agent sessions (*.jsonl)
;;
;; Diagnostics show through Flymake; the actions' apply / preview commands are offered as code
;; actions (M-x eglot-code-actions).  Needs Eglot (built into Emacs 29+, or the `eglot'
;; package for Emacs 26.3-28).

;;; Code:

(require 'eglot)

(defgroup action-lsp nil
  "The action-lsp language server, through Eglot."
  :group 'eglot
  :prefix "action-lsp-")

(defcustom action-lsp-command '("action-lsp" "serve")
  "The command that starts the server: a program on `exec-path' and its arguments."
  :type '(repeat string))

;; The settings of the server (section `actionLsp'), as a plist that Eglot turns into JSON:
;; keywords are keys, vectors are arrays, `:json-false' is false.  Keys:
;;   :dialects        vector of dialect names ["actions-json" "dyad" ...]  (default: those on by default;
;;                    README.md, "Dialects", lists them)
;;   :severity        plist code -> "error"|"warning"|"information"|"hint"|"off",
;;                    e.g. (:missing-field "warning" :unknown-field "off")
;;   :allowOverwrite  t or :json-false: may create actions replace existing files?
;;   :workspaceRoots  vector of extra roots that action paths resolve against
;;   :docsUrl         base of the rule links in diagnostics
(defcustom action-lsp-settings
  '(:allowOverwrite :json-false
    :workspaceRoots [])
  "Settings sent to action-lsp, as `initializationOptions' and for `workspace/configuration'."
  :type 'plist)

(define-derived-mode action-lsp-jsonl-mode prog-mode "JSONL"
  "Agent sessions in JSON Lines (Claude Code, Codex), checked by action-lsp.
Files ending in .jsonl open in it unless another mode already claims them.")

(unless (assoc-default "session.jsonl" auto-mode-alist #'string-match-p)
  (add-to-list 'auto-mode-alist '("\\.jsonl\\'" . action-lsp-jsonl-mode)))

(defcustom action-lsp-modes '(markdown-mode gfm-mode text-mode action-lsp-jsonl-mode)
  "Major modes whose buffers action-lsp checks."
  :type '(repeat symbol))

(defun action-lsp--initialization-options (_server)
  "The `initializationOptions' of the server: `action-lsp-settings'."
  action-lsp-settings)

(defun action-lsp-contact (&optional _interactive)
  "The Eglot contact that starts action-lsp with its settings."
  (append action-lsp-command
          (list :initializationOptions #'action-lsp--initialization-options)))

(add-to-list 'eglot-server-programs (cons action-lsp-modes #'action-lsp-contact))

;; Eglot answers `workspace/configuration' from `eglot-workspace-configuration'.  Wrap the global
;; value in a function that adds `:actionLsp' unless it (or a project's .dir-locals.el) has one.
(defvar action-lsp--previous-configuration nil
  "The global `eglot-workspace-configuration' from before action-lsp was loaded.")

(defun action-lsp-workspace-configuration (server)
  "The workspace configuration for SERVER, with `action-lsp-settings' under `:actionLsp'."
  (let ((base (if (functionp action-lsp--previous-configuration)
                  (funcall action-lsp--previous-configuration server)
                action-lsp--previous-configuration)))
    (cond ((and (consp (car-safe base)) (not (assq :actionLsp base)))  ; alist form
           (append base (list (cons :actionLsp action-lsp-settings))))
          ((or (consp (car-safe base)) (plist-member base :actionLsp)) base)
          (t (append base (list :actionLsp action-lsp-settings))))))

(unless (eq (default-value 'eglot-workspace-configuration) #'action-lsp-workspace-configuration)
  (setq action-lsp--previous-configuration (default-value 'eglot-workspace-configuration))
  (setq-default eglot-workspace-configuration #'action-lsp-workspace-configuration))

(provide 'action-lsp)
;;; action-lsp.el ends here
