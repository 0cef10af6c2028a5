-- action-lsp: buffer-local :ActionApply, :ActionApplyAll and :ActionPreview in transcripts
-- that the action-lsp language server is attached to. See lua/action_lsp/init.lua.
if vim.g.loaded_action_lsp then
  return
end
vim.g.loaded_action_lsp = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('action-lsp: Neovim 0.11 or later is required', vim.log.levels.WARN)
  return
end

local group = vim.api.nvim_create_augroup('action_lsp', { clear = true })

vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  desc = 'action-lsp: buffer-local commands',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and require('action_lsp').is_action_lsp(client) then
      require('action_lsp').attach(client, args.buf)
    end
  end,
})

vim.api.nvim_create_autocmd('LspDetach', {
  group = group,
  desc = 'action-lsp: remove the buffer-local commands',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and require('action_lsp').is_action_lsp(client) then
      require('action_lsp').detach(client, args.buf)
    end
  end,
})
