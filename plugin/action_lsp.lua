-- Lets this repository itself be added as a Neovim plugin (vim.pack.add, lazy.nvim, any plugin
-- manager): the plugin lives in editors/nvim; this puts it on the runtimepath and loads it.
local here = debug.getinfo(1, 'S').source:sub(2)
local dir = vim.fs.normalize(vim.fn.fnamemodify(here, ':p:h:h') .. '/editors/nvim')
if not vim.list_contains(vim.opt.runtimepath:get(), dir) then
  vim.opt.runtimepath:append(dir)
end
dofile(dir .. '/plugin/action_lsp.lua')
