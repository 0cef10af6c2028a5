-- action-lsp for Neovim 0.11+: checks the actions written into LLM agent transcripts.
--
-- With editors/nvim on the runtimepath, `vim.lsp.enable('action_lsp')` is all you add;
-- Neovim reads this file as the default config of the `action_lsp` client. Override any
-- field with `vim.lsp.config('action_lsp', { ... })` (tables are merged), e.g.
--
--   vim.lsp.config('action_lsp', {
--     cmd = { '/path/to/venv/bin/action-lsp', 'serve' },
--     settings = { actionLsp = { severity = { ['missing-field'] = 'off' } } },
--   })

---@type vim.lsp.Config
return {
  cmd = { 'action-lsp', 'serve' },
  filetypes = { 'markdown', 'text' },
  -- The workspace root: file actions (create_file, modify_file, ...) resolve against it.
  root_markers = { '.git', '.hg', '.jj', '.action-lsp' },
  -- Answered to `workspace/configuration` for the section `actionLsp`.
  settings = {
    actionLsp = {
      -- dialects = { 'actions-json', 'xml-tags', 'aether', 'action-plan' }, -- default: all
      severity = vim.empty_dict(), -- code -> 'error' | 'warning' | 'information' | 'hint' | 'off'
      allowOverwrite = false, -- may create actions replace existing files?
      workspaceRoots = {}, -- extra roots that action paths resolve against
      -- docsUrl = 'https://...', -- base of the rule links in diagnostics
    },
  },
}
