-- action-lsp for Neovim 0.11+: checks the actions written into LLM agent transcripts.
--
-- Neovim reads this file as the default config of the `action_lsp` client (the plugin enables
-- it). Override any field with `vim.lsp.config('action_lsp', { ... })` (tables are merged), e.g.
--
--   vim.lsp.config('action_lsp', {
--     cmd = { '/path/to/venv/bin/action-lsp', 'serve' },
--     settings = { actionLsp = { severity = { ['missing-field'] = 'off' } } },
--   })

---@type vim.lsp.Config
return {
  cmd = { 'action-lsp', 'serve' },
  -- jsonl: agent sessions (Claude Code, Codex). Not json: every package.json would be checked;
  -- add 'json' here (vim.lsp.config) if you keep sessions as .json files. Then the filetypes of
  -- the chat buffers of AI plugins (require('action_lsp').chat_plugins): scratch buffers the
  -- plugin attaches the client to (vim.g.action_lsp_chats turns each off).
  filetypes = require('action_lsp').filetypes(),
  -- The workspace root, which file actions (create_file, modify_file, ...) resolve against and
  -- whose configuration declares dialects: the nearest directory holding `.action-lsp`,
  -- `.action-lsp.toml`, a pyproject.toml with [tool.action-lsp], `.git`, `.hg` or `.jj` -- as
  -- `action-lsp check` finds it (see require('action_lsp').find_root).
  root_dir = function(bufnr, on_dir)
    require('action_lsp').root_dir(bufnr, on_dir)
  end,
  handlers = {
    -- a preview opens once, in a split, never in the transcript's window
    ['window/showDocument'] = function(...)
      return require('action_lsp').show_document(...)
    end,
  },
  -- Answered to `workspace/configuration` for the section `actionLsp`.
  settings = {
    actionLsp = {
      -- dialects = { 'actions-json', 'dyad' }, -- default: those on by default (README.md, "Dialects", lists them)
      severity = vim.empty_dict(), -- code -> 'error' | 'warning' | 'information' | 'hint' | 'off'
      allowOverwrite = false, -- may create actions replace existing files?
      workspaceRoots = {}, -- extra roots that action paths resolve against
      -- docsUrl = 'https://...', -- base of the rule links in diagnostics
    },
  },
}
