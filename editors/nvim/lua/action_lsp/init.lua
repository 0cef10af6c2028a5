-- action-lsp's Neovim commands. They act on the action under the cursor: the code lens of the
-- wanted command whose range holds the cursor line, else the nearest one above it. The lens
-- command is then run through `client:exec_cmd`, so the server does the work and answers with
-- `workspace/applyEdit`, which Neovim applies itself (edited buffers are left unsaved, as for
-- any LSP edit; `:wall` writes them).
local M = {}

--- The user commands and the server command each runs.
M.commands = {
  ActionApply = { command = 'action-lsp.apply', desc = 'Apply the action under the cursor' },
  ActionApplyAll = {
    command = 'action-lsp.applyAll',
    desc = 'Apply every action of the block or message under the cursor',
  },
  ActionPreview = {
    command = 'action-lsp.previewDiff',
    desc = 'Show the diff the action under the cursor would make',
  },
}

local TIMEOUT_MS = 5000

local function notify(msg, level)
  vim.notify('action-lsp: ' .. msg, level or vim.log.levels.INFO)
end

--- Is `client` an action-lsp server (whatever the user named its config)?
---@param client vim.lsp.Client
function M.is_action_lsp(client)
  if client.name == 'action_lsp' or client.name == 'action-lsp' then
    return true
  end
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  local names = type(provider) == 'table' and provider.commands or {}
  return vim.list_contains(names, 'action-lsp.apply')
end

local function action_clients(bufnr)
  return vim.tbl_filter(M.is_action_lsp, vim.lsp.get_clients({ bufnr = bufnr }))
end

--- The lens running `command` whose range holds `line` (0-based), else the nearest above it.
---@param lenses lsp.CodeLens[]
---@param command string
---@param line integer
---@return lsp.CodeLens|nil
function M.pick_lens(lenses, command, line)
  local inside, above
  for _, lens in ipairs(lenses or {}) do
    if lens.command and lens.command.command == command then
      local first, last = lens.range.start.line, lens.range['end'].line
      if first <= line and line <= last then
        -- the innermost: the one that starts last
        if not inside or first > inside.range.start.line then
          inside = lens
        end
      elseif last < line then
        if not above or first > above.range.start.line then
          above = lens
        end
      end
    end
  end
  return inside or above
end

--- Fill in the commands of lenses the server left for `codeLens/resolve`.
local function resolve(client, bufnr, lenses)
  if not client:supports_method('codeLens/resolve', bufnr) then
    return lenses
  end
  for i, lens in ipairs(lenses) do
    if not lens.command then
      local reply = client:request_sync('codeLens/resolve', lens, TIMEOUT_MS, bufnr)
      if reply and reply.result then
        lenses[i] = reply.result
      end
    end
  end
  return lenses
end

local function show_diff(text, title)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'diff'
  pcall(vim.api.nvim_buf_set_name, buf, title)
end

--- Run the server command `command` for the action under the cursor of `bufnr`.
---@param command string e.g. 'action-lsp.apply'
---@param opts? { bufnr?: integer, line?: integer, on_done?: fun(err: lsp.ResponseError|nil, result: any) }
function M.run(command, opts)
  opts = opts or {}
  local bufnr = (opts.bufnr == nil or opts.bufnr == 0) and vim.api.nvim_get_current_buf() or opts.bufnr
  local line = opts.line or (vim.api.nvim_win_get_cursor(0)[1] - 1)
  local client = action_clients(bufnr)[1]
  local function done(err, result)
    if opts.on_done then
      opts.on_done(err, result)
    end
  end
  if not client then
    notify('no action-lsp server is attached to this buffer', vim.log.levels.WARN)
    return done({ code = -1, message = 'no client' })
  end
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  client:request('textDocument/codeLens', params, function(err, lenses)
    if err then
      notify('code lenses failed: ' .. err.message, vim.log.levels.ERROR)
      return done(err)
    end
    local lens = M.pick_lens(resolve(client, bufnr, lenses or {}), command, line)
    if not lens then
      notify(('no action at or above line %d offers %s'):format(line + 1, command), vim.log.levels.WARN)
      return done({ code = -1, message = 'no lens' })
    end
    client:exec_cmd(lens.command, { bufnr = bufnr }, function(cmd_err, result)
      if cmd_err then
        notify(lens.command.title .. ' failed: ' .. cmd_err.message, vim.log.levels.ERROR)
      elseif command == 'action-lsp.previewDiff' then
        local text = type(result) == 'string' and result
          or (type(result) == 'table' and type(result.diff) == 'string' and result.diff)
        if text and text ~= '' then
          show_diff(text, 'action-lsp://preview/' .. (lens.range.start.line + 1))
        end
      end
      done(cmd_err, result)
    end)
  end, bufnr)
end

--- Create the buffer-local commands (and keep the code lenses fresh) in `bufnr`.
---@param client vim.lsp.Client
---@param bufnr integer
function M.attach(client, bufnr)
  for name, spec in pairs(M.commands) do
    vim.api.nvim_buf_create_user_command(bufnr, name, function()
      M.run(spec.command, { bufnr = bufnr })
    end, { desc = 'action-lsp: ' .. spec.desc })
  end
  if vim.g.action_lsp_codelens == false or not client:supports_method('textDocument/codeLens', bufnr) then
    return
  end
  if vim.lsp.codelens.enable then -- Neovim versions that refresh lenses themselves
    pcall(vim.lsp.codelens.enable, true, { bufnr = bufnr })
    return
  end
  local group = vim.api.nvim_create_augroup('action_lsp_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end,
  })
  vim.lsp.codelens.refresh({ bufnr = bufnr })
end

--- Remove the commands when the last action-lsp client leaves `bufnr`.
---@param client vim.lsp.Client
---@param bufnr integer
function M.detach(client, bufnr)
  for _, other in ipairs(action_clients(bufnr)) do
    if other.id ~= client.id then
      return
    end
  end
  for name in pairs(M.commands) do
    pcall(vim.api.nvim_buf_del_user_command, bufnr, name)
  end
  pcall(vim.api.nvim_del_augroup_by_name, 'action_lsp_codelens_' .. bufnr)
end

return M
