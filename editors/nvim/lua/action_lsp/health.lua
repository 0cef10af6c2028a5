-- :checkhealth action_lsp — Neovim version, the server (found? which version?), the client, and
-- the workspace root of the transcripts that are open.
local M = {}

function M.check()
  local health = vim.health
  local action_lsp = require('action_lsp')

  health.start('Neovim')
  local v = vim.version()
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok(('Neovim %d.%d.%d (0.11 or later is required)'):format(v.major, v.minor, v.patch))
  else
    health.error(('Neovim %d.%d.%d: action-lsp needs 0.11 or later'):format(v.major, v.minor, v.patch))
    return
  end

  health.start('Language server')
  local config = action_lsp.config()
  if not config then
    health.error('no `action_lsp` client config: editors/nvim is not on the runtimepath')
    return
  end
  local cmd = config.cmd
  if type(cmd) ~= 'table' then
    health.info('`cmd` is a function: not checked')
  else
    local exe = vim.fn.exepath(cmd[1])
    if exe == '' then
      local install = action_lsp.install_commands()
      health.error(('`%s` not found: not on PATH (cmd = %s)'):format(cmd[1], vim.inspect(cmd)), {
        'Install the server: ' .. install[1],
        'or: ' .. install[2],
        "or give its path: vim.lsp.config('action_lsp', { cmd = { '/path/to/action-lsp', 'serve' } })",
      })
    else
      health.ok(('server: %s (cmd = %s)'):format(exe, vim.inspect(cmd)))
      local ok, r = pcall(function()
        return vim.system({ exe, '--version' }, { text = true }):wait(15000)
      end)
      if ok and r.code == 0 then
        health.ok('version: ' .. vim.trim(r.stdout or ''))
      else
        health.warn(('`%s --version` failed: %s'):format(exe, ok and vim.trim((r.stderr or '') .. (r.stdout or '')) or tostring(r)))
      end
    end
  end
  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('action_lsp')
  if enabled == false then
    health.warn('the `action_lsp` client is not enabled', { "vim.lsp.enable('action_lsp')" })
  elseif enabled then
    health.ok('client enabled for filetypes: ' .. table.concat(config.filetypes or {}, ', '))
  end
  local clients = vim.lsp.get_clients({ name = 'action_lsp' })
  for _, client in ipairs(clients) do
    health.info(('client %d running, root %s'):format(client.id, client.root_dir or '(none)'))
  end

  health.start('Chat plugins')
  local chats = action_lsp.chats()
  local names = vim.tbl_keys(action_lsp.chat_plugins)
  table.sort(names)
  for _, name in ipairs(names) do
    local chat = chats[name]
    if not chat then
      health.info(('%s: off (vim.g.action_lsp_chats)'):format(name))
    elseif chat.filetype then
      health.info(('%s: buffers of filetype `%s`'):format(name, chat.filetype))
    else
      health.info(('%s: chat files in %s'):format(name, chat.dir))
    end
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and action_lsp.is_chat(buf) then
      local attached = #action_lsp.clients(buf) > 0
      local root = action_lsp.chat_root()
      local report = attached and health.ok or health.warn
      report(('chat %s (%s): %s, root %s'):format(vim.api.nvim_buf_get_name(buf), vim.bo[buf].filetype,
        attached and 'attached' or 'not attached', root or '(none: the current directory has no root)'))
    end
  end

  health.start('Workspace root')
  health.info('markers, strongest first: ' .. table.concat(action_lsp.root_markers, ', '))
  local files = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if vim.api.nvim_buf_is_loaded(buf) and name ~= '' and vim.bo[buf].buftype == ''
      and vim.list_contains(config.filetypes or {}, vim.bo[buf].filetype) and not action_lsp.is_chat(buf) then
      table.insert(files, name)
    end
  end
  if #files == 0 then
    table.insert(files, vim.fn.getcwd() .. '/transcript.md')
    health.info('no transcript open: checking the current directory')
  end
  for _, file in ipairs(files) do
    local root, marker = action_lsp.find_root(file)
    if root then
      health.ok(('%s: root %s (marker %s)'):format(file, root, marker))
      local config = action_lsp.config_file(root)
      health.info(config and ('%s: configuration %s'):format(file, config)
        or ('%s: no configuration (.action-lsp.toml or [tool.action-lsp] in the root)'):format(file))
    else
      health.warn(("%s: no root marker above it: file actions resolve against the transcript's own directory"):format(file), {
        'create a `.action-lsp` directory (or an .action-lsp.toml, or a pyproject.toml with a [tool.action-lsp] table) in the workspace the transcript belongs to',
      })
    end
  end
end

return M
