-- action-lsp for Neovim 0.11+: enables the `action_lsp` client (config: lsp/action_lsp.lua) and
-- adds :ActionApply, :ActionApplyAll and :ActionPreview (lua/action_lsp/init.lua).
--   vim.g.action_lsp_enable = false   -- before the plugin loads: do not enable the client
--   vim.g.action_lsp_codelens = false -- do not refresh the code lenses
--   vim.g.action_lsp_chats = { avante = false } -- chat plugins whose buffers are not attached
if vim.g.loaded_action_lsp then
  return
end
vim.g.loaded_action_lsp = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('action-lsp: Neovim 0.11 or later is required (:checkhealth action_lsp)', vim.log.levels.WARN)
  return
end

local action_lsp = require('action_lsp')
action_lsp.create_commands()

local group = vim.api.nvim_create_augroup('action_lsp', { clear = true })

vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  desc = 'action-lsp: code lenses',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and action_lsp.is_action_lsp(client) then
      action_lsp.attach(client, args.buf)
    end
  end,
})

vim.api.nvim_create_autocmd('LspDetach', {
  group = group,
  desc = 'action-lsp: stop refreshing the code lenses',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and action_lsp.is_action_lsp(client) then
      action_lsp.detach(client, args.buf)
    end
  end,
})

vim.api.nvim_create_autocmd('FileType', {
  group = group,
  desc = 'action-lsp: attach to the chat buffers of AI plugins (buftype=nofile)',
  callback = function(args)
    action_lsp.attach_chat(args.buf)
  end,
})

vim.api.nvim_create_autocmd('BufFilePre', {
  group = group,
  desc = 'action-lsp: a chat buffer about to be named: the URI the server knows it by',
  callback = function(args)
    action_lsp.before_rename(args.buf)
  end,
})

vim.api.nvim_create_autocmd('BufFilePost', {
  group = group,
  desc = 'action-lsp: a chat buffer named (or renamed) joins the server under its name',
  callback = function(args)
    action_lsp.after_rename(args.buf)
  end,
})

vim.api.nvim_create_autocmd('FileType', {
  group = group,
  desc = 'action-lsp: say so when the server is missing',
  callback = function(args)
    action_lsp.check_server(args.buf)
  end,
})

if vim.g.action_lsp_enable ~= false then
  vim.lsp.enable('action_lsp')
  -- chats opened before the plugin loaded (a plugin manager loading it late)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    action_lsp.attach_chat(buf)
  end
end
