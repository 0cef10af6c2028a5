-- action-lsp's Neovim commands. They act on the action under the cursor: the code lens of the
-- wanted command whose range holds the cursor line, else the nearest one above it. The lens
-- command is then run through `client:exec_cmd`, so the server does the work and answers with
-- `workspace/applyEdit`, which Neovim applies itself (edited buffers are left unsaved, as for
-- any LSP edit; `:wall` writes them). Each command says what it did with `vim.notify`.
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

-- The root of the plugin's checkout (editors/nvim/lua/action_lsp/init.lua -> 4 levels up).
local function checkout_root()
  local source = debug.getinfo(1, 'S').source
  if source:sub(1, 1) ~= '@' then
    return nil
  end
  local root = vim.fs.normalize(vim.fn.fnamemodify(source:sub(2), ':p:h:h:h:h:h'))
  local pyproject = io.open(root .. '/pyproject.toml', 'r')
  if not pyproject then
    return nil
  end
  local text = pyproject:read('*a')
  pyproject:close()
  return text:find('name%s*=%s*"action%-lsp"') and root or nil
end

--- The commands that install the server (from the checkout the plugin came from, if any).
---@return string[]
function M.install_commands()
  local root = checkout_root()
  local src = root and vim.fn.shellescape(root) or '/path/to/action-lsp'
  return { 'pipx install ' .. src, 'uv tool install ' .. src }
end

--- The client config as Neovim resolved it (shipped lsp/action_lsp.lua + the user's changes).
---@return vim.lsp.Config|nil
function M.config()
  local ok, config = pcall(function()
    return vim.lsp.config.action_lsp
  end)
  return ok and config or nil
end

--- The server executable of the config when it cannot be run, else nil.
---@return string|nil
function M.missing_server()
  local config = M.config()
  local cmd = config and config.cmd
  if type(cmd) == 'table' and cmd[1] and vim.fn.executable(cmd[1]) == 0 then
    return cmd[1]
  end
  return nil
end

--- What to tell the user when the server is missing.
---@param exe string
function M.missing_message(exe)
  local cmds = M.install_commands()
  return ("the language server `%s` was not found (not on PATH). Install it: `%s` (or `%s`), "
    .. "or give its path: vim.lsp.config('action_lsp', { cmd = { '/path/to/action-lsp', 'serve' } }). "
    .. 'See :checkhealth action_lsp'):format(exe, cmds[1], cmds[2])
end

-- Workspace root -------------------------------------------------------------------------

--- Markers of a workspace root, strongest first in one directory. Walking up from a transcript,
--- the first directory holding any of them is its root (the nearest wins): an action-lsp
--- workspace inside a repository is the root of its transcripts, and nothing above a
--- repository's top ever is. `action-lsp check/parse/apply` and the server find it the same way
--- (action_lsp/project_root.py).
M.root_markers = { '.action-lsp', '.action-lsp.toml', 'pyproject.toml [tool.action-lsp]', '.git', '.hg', '.jj' }

local function has_tool_table(pyproject)
  local f = io.open(pyproject, 'r')
  if not f then
    return false
  end
  for line in f:lines() do
    if line:match('^%s*%[tool%.action%-lsp[%]%.]') or line:match('^%s*%[tool%."action%-lsp"[%]%.]') then
      f:close()
      return true
    end
  end
  f:close()
  return false
end

--- Can every user write into `dir` (like /tmp)? Anyone may plant a marker or a configuration
--- there, so it is never a root and has no configuration.
---@param dir string
---@return boolean
local function shared(dir)
  local st = vim.uv.fs_stat(dir)
  return st ~= nil and math.floor(st.mode / 2) % 2 == 1 -- S_IWOTH
end

--- The strongest marker `dir` holds, or nil (nil for a directory every user may write into).
---@param dir string
---@return string|nil
function M.marker_of(dir)
  if shared(dir) then
    return nil
  end
  if vim.uv.fs_stat(dir .. '/.action-lsp') then
    return '.action-lsp'
  end
  local config = vim.uv.fs_stat(dir .. '/.action-lsp.toml')
  if config and config.type == 'file' then
    return '.action-lsp.toml'
  end
  if has_tool_table(dir .. '/pyproject.toml') then
    return 'pyproject.toml [tool.action-lsp]'
  end
  for _, marker in ipairs({ '.git', '.hg', '.jj' }) do
    if vim.uv.fs_stat(dir .. '/' .. marker) then
      return marker
    end
  end
  return nil
end

--- The workspace root of `path` (a file) and the marker that made it, or nil.
---@param path string
---@return string|nil root, string|nil marker
function M.find_root(path)
  if path == '' then
    return nil, nil
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
  for dir in vim.fs.parents(path) do
    local marker = M.marker_of(dir)
    if marker then
      return dir, marker
    end
  end
  return nil, nil
end

--- The configuration file the server reads in `root` (declared dialects): the root's own
--- `.action-lsp.toml`, else its pyproject.toml with a [tool.action-lsp] table; nil: none (a
--- file in a directory above the root is never read).
---@param root string
---@return string|nil
function M.config_file(root)
  if shared(root) then
    return nil
  end
  local own = vim.uv.fs_stat(root .. '/.action-lsp.toml')
  if own and own.type == 'file' then
    return root .. '/.action-lsp.toml'
  end
  if has_tool_table(root .. '/pyproject.toml') then
    return root .. '/pyproject.toml'
  end
  return nil
end

--- The workspace root of the directory `dir` itself (its own markers first, then those above
--- it), and the marker that made it, or nil.
---@param dir string
---@return string|nil root, string|nil marker
function M.find_root_of_dir(dir)
  dir = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p'))
  local marker = M.marker_of(dir)
  if marker then
    return dir, marker
  end
  return M.find_root(dir)
end

--- The workspace root of a chat buffer: the one of Neovim's current directory, else that
--- directory itself (unless every user may write into it, like /tmp: then none).
---@return string|nil root, string|nil marker
function M.chat_root()
  local cwd = vim.fn.getcwd()
  local root, marker = M.find_root_of_dir(cwd)
  if root then
    return root, marker
  end
  if shared(cwd) then
    return nil, nil
  end
  return vim.fs.normalize(cwd), nil
end

--- `root_dir` of the client config: the workspace root of the buffer's file (nil: none found;
--- the client then starts without a workspace folder); for a chat buffer (an AI plugin's
--- buffer, or a chat file in gp.nvim's / parrot.nvim's chat directory) the one of Neovim's
--- current directory.
---@param bufnr integer
---@param on_dir fun(root_dir?: string)
function M.root_dir(bufnr, on_dir)
  if M.is_chat(bufnr) then
    on_dir((M.chat_root()))
    return
  end
  on_dir((M.find_root(vim.api.nvim_buf_get_name(bufnr))))
end

-- Chat buffers ---------------------------------------------------------------------------

--- The AI chat plugins whose buffers the client attaches to. `filetype`: the filetype of the
--- plugin's chat buffer (a scratch buffer, buftype=nofile, not a file on disk); `dir`: where
--- the plugin keeps its chats as markdown files (under stdpath('data') when relative).
--- avante.nvim: only its answer buffer (`Avante`); its input (`AvanteInput`), selected files
--- (`AvanteSelectedFiles`), selected code, todos and prompt buffers hold no answers.
M.chat_plugins = {
  codecompanion = { filetype = 'codecompanion' },
  avante = { filetype = 'Avante' },
  copilotchat = { filetype = 'copilot-chat' },
  gp = { dir = 'gp/chats' },
  parrot = { dir = 'parrot/chats' },
}

--- The chat plugins turned on, as `vim.g.action_lsp_chats` says (read each time):
---   vim.g.action_lsp_chats = { avante = false }          -- not avante.nvim's buffers
---   vim.g.action_lsp_chats = { gp = '~/notes/gp-chats' } -- gp.nvim's `chat_dir`, if changed
---   vim.g.action_lsp_chats = false                       -- no chat plugin at all
--- Every plugin is on by default.
---@return table<string, { filetype?: string, dir?: string }>
function M.chats()
  local wanted = vim.g.action_lsp_chats
  if wanted == false then
    return {}
  end
  wanted = type(wanted) == 'table' and wanted or {}
  local out = {}
  for name, spec in pairs(M.chat_plugins) do
    local want = wanted[name]
    if want ~= false and want ~= 0 then
      local chat = { filetype = spec.filetype }
      local dir = type(want) == 'string' and want or spec.dir
      if dir then
        dir = vim.fn.expand(dir)
        if not dir:match('^/') and not dir:match('^%a:[/\\]') then
          dir = vim.fn.stdpath('data') .. '/' .. dir
        end
        chat.dir = vim.fs.normalize(vim.fn.resolve(dir)) -- the plugins resolve their chat_dir
      end
      out[name] = chat
    end
  end
  return out
end

--- The filetypes of the chat buffers turned on (sorted).
---@return string[]
function M.chat_filetypes()
  local fts = {}
  for _, chat in pairs(M.chats()) do
    if chat.filetype then
      table.insert(fts, chat.filetype)
    end
  end
  table.sort(fts)
  return fts
end

--- The filetypes of the shipped config: transcripts, sessions and the chat buffers turned on.
---@return string[]
function M.filetypes()
  return vim.list_extend({ 'markdown', 'text', 'jsonl' }, M.chat_filetypes())
end

--- Is `bufnr` a chat: a chat plugin's buffer (by filetype), or a file in a chat directory?
---@param bufnr integer
---@return boolean
function M.is_chat(bufnr)
  local ft = vim.bo[bufnr].filetype
  local name = vim.api.nvim_buf_get_name(bufnr)
  for _, chat in pairs(M.chats()) do
    if chat.filetype and chat.filetype == ft then
      return true
    end
    if chat.dir and name ~= '' and vim.bo[bufnr].buftype == '' then
      local path = vim.fs.normalize(vim.fn.resolve(vim.fn.fnamemodify(name, ':p')))
      if path:sub(1, #chat.dir + 1) == chat.dir .. '/' then
        return true
      end
    end
  end
  return false
end

local function client_enabled()
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled('action_lsp')
  end
  return vim.g.action_lsp_enable ~= false
end

--- Attach the client to a chat plugin's scratch buffer. Neovim's own `vim.lsp.enable` attaches
--- only to buffers that are files (buftype ''); a chat buffer is buftype=nofile, named
--- `[CodeCompanion] 3`, `copilot-chat` or `AVANTE_RESULT` -- a name Neovim makes into a path in
--- the current directory, which is its URI (file:///.../%5BCodeCompanion%5D%203): the server
--- keeps such a document in memory and never reads or writes that path. A buffer not named yet
--- (avante names its answer buffer once it is shown) is attached when it gets its name.
--- Only the chat filetypes turned on that the config's `filetypes` holds are attached: never
--- a markdown scratch buffer (a hover window, a plugin's preview).
---@param bufnr integer
function M.attach_chat(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) or vim.bo[bufnr].buftype == '' or not client_enabled() then
    return
  end
  local ft = vim.bo[bufnr].filetype
  local config = M.config()
  if not config or not vim.list_contains(M.chat_filetypes(), ft)
    or not vim.list_contains(config.filetypes or {}, ft) then
    return
  end
  if vim.api.nvim_buf_get_name(bufnr) == '' or #M.clients(bufnr) > 0 then
    return
  end
  if M.missing_server() then
    return
  end
  config = vim.deepcopy(config)
  config.root_dir = M.chat_root()
  vim.lsp.start(config, { bufnr = bufnr, reuse_client = config.reuse_client })
end

--- Before a chat buffer is named again (CodeCompanion names a chat by its title; avante sets
--- the same name each time its window is entered): remember the URI the server knows it by.
---@param bufnr integer
function M.before_rename(bufnr)
  if vim.bo[bufnr].buftype == '' or #M.clients(bufnr) == 0 then
    return
  end
  vim.b[bufnr].action_lsp_uri = vim.uri_from_bufnr(bufnr)
end

--- After a chat buffer is named: if its URI changed, the server closes the document under
--- the old one and opens it under the new one (Neovim itself would go on sending changes under
--- the new URI for a document the server does not know); then attach it if it is not yet.
---@param bufnr integer
function M.after_rename(bufnr)
  local old = vim.b[bufnr].action_lsp_uri
  vim.b[bufnr].action_lsp_uri = nil
  if old and old ~= vim.uri_from_bufnr(bufnr) then
    for _, client in ipairs(M.clients(bufnr)) do
      client:notify('textDocument/didClose', { textDocument = { uri = old } })
      vim.lsp.buf_detach_client(bufnr, client.id)
    end
  end
  M.attach_chat(bufnr)
end

-- Clients and lenses ---------------------------------------------------------------------

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

--- The action-lsp clients attached to `bufnr`.
---@param bufnr integer
---@return vim.lsp.Client[]
function M.clients(bufnr)
  return vim.tbl_filter(M.is_action_lsp, vim.lsp.get_clients({ bufnr = bufnr }))
end
local action_clients = M.clients

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

-- Preview window -------------------------------------------------------------------------

local shown = {} -- preview URIs the server showed through window/showDocument

--- Show `text` (a diff) in the preview window of the current tab: a split below, made once and
--- reused by later previews. The window the command ran in keeps its buffer and the focus.
---@param text string
---@param name string
function M.open_preview(text, name)
  local from = vim.api.nvim_get_current_win()
  local win
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.w[w].action_lsp_preview then
      win = w
    end
  end
  if not win then
    vim.cmd('botright split')
    win = vim.api.nvim_get_current_win()
    vim.w[win].action_lsp_preview = true
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split((text:gsub('\n$', '')), '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'diff'
  vim.api.nvim_win_set_buf(win, buf)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, desc = 'action-lsp: close the preview' })
  if vim.api.nvim_win_is_valid(from) and from ~= win then
    vim.api.nvim_set_current_win(from)
  end
  return win
end

--- `window/showDocument` for action-lsp clients: the server shows a preview's .diff file this
--- way; it goes to the preview window instead of replacing the transcript. Other documents are
--- shown as Neovim shows them.
function M.show_document(err, result, ctx, config)
  local uri = result and result.uri or ''
  local path = uri:match('^file://') and vim.uri_to_fname(uri) or nil
  if path and path:match('%.diff$') and path:find('action%-lsp%-preview') then
    local f = io.open(path, 'r')
    if f then
      local text = f:read('*a')
      f:close()
      M.open_preview(text, 'action-lsp://preview/' .. vim.fs.basename(path))
      shown[uri] = true
      return { success = true }
    end
  end
  return vim.lsp.handlers['window/showDocument'](err, result, ctx, config)
end

-- Commands -------------------------------------------------------------------------------

local function report(command, lens, result)
  local line = lens.range.start.line + 1
  if command == 'action-lsp.previewDiff' then
    local text = type(result) == 'string' and result
      or (type(result) == 'table' and type(result.diff) == 'string' and result.diff)
    if not text or text == '' then
      notify(('no diff for the action on line %d'):format(line), vim.log.levels.WARN)
      return
    end
    local uri = type(result) == 'table' and result.uri or nil
    if not (uri and shown[uri]) then
      M.open_preview(text, ('action-lsp://preview/line-%d.diff'):format(line))
    end
    shown[uri or ''] = nil
    local first = text:match('^# ([^\n]*)')
    notify(('preview of the action on line %d%s (nothing written)'):format(line, first and (': ' .. first) or ''))
    return
  end
  local message = type(result) == 'table' and result.message or nil
  if type(result) == 'table' and result.told then
    return -- the server showed its message (window/showMessage): one notification per outcome
  end
  if type(result) == 'table' and result.applied == false then
    notify(('nothing applied (line %d): %s'):format(line, message or 'the server refused'), vim.log.levels.WARN)
  elseif message and message:match('^Already applied') then
    notify(('line %d: %s'):format(line, message))
  else
    notify(('applied (line %d): %s. The edited buffers are not saved yet: :wall writes them'):format(line, message or 'done'))
  end
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
    local exe = M.missing_server()
    -- WARN, not ERROR: an error message inside a user command makes `vim.cmd('ActionApply')`
    -- raise (E5113 with a Lua stack trace) where the user only needs to read why.
    if exe then
      notify(M.missing_message(exe), vim.log.levels.WARN)
    else
      local config = M.config()
      local fts = config and config.filetypes or {}
      notify(
        ('no action-lsp server is attached to this buffer (filetype %q; the client handles %s). See :checkhealth action_lsp')
          :format(vim.bo[bufnr].filetype, table.concat(fts, ', ')),
        vim.log.levels.WARN
      )
    end
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
      local what = command == 'action-lsp.previewDiff' and 'preview' or 'apply'
      notify(('no file action to %s at or above line %d'):format(what, line + 1), vim.log.levels.WARN)
      return done({ code = -1, message = 'no lens' })
    end
    client:exec_cmd(lens.command, { bufnr = bufnr }, function(cmd_err, result)
      if cmd_err then
        notify(lens.command.title .. ' failed: ' .. cmd_err.message, vim.log.levels.ERROR)
      else
        report(command, lens, result)
      end
      done(cmd_err, result)
    end)
  end, bufnr)
end

--- The user commands. They exist from the start (not only once a server attached), so that
--- without a server they say why nothing happens.
function M.create_commands()
  for name, spec in pairs(M.commands) do
    vim.api.nvim_create_user_command(name, function()
      M.run(spec.command)
    end, { desc = 'action-lsp: ' .. spec.desc })
  end
end

--- Keep the code lenses of `bufnr` fresh once `client` attached.
---@param client vim.lsp.Client
---@param bufnr integer
function M.attach(client, bufnr)
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

--- Stop refreshing the lenses when the last action-lsp client leaves `bufnr`.
---@param client vim.lsp.Client
---@param bufnr integer
function M.detach(client, bufnr)
  for _, other in ipairs(action_clients(bufnr)) do
    if other.id ~= client.id then
      return
    end
  end
  pcall(vim.api.nvim_del_augroup_by_name, 'action_lsp_codelens_' .. bufnr)
end

--- On opening a file the client would handle: if the server cannot be run, say so once
--- (Neovim itself only writes that to its LSP log).
---@param bufnr integer
function M.check_server(bufnr)
  if vim.bo[bufnr].buftype ~= '' and not vim.list_contains(M.chat_filetypes(), vim.bo[bufnr].filetype) then
    return
  end
  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('action_lsp')
  if vim.lsp.is_enabled and not enabled then
    return
  end
  local config = M.config()
  if not config or not vim.list_contains(config.filetypes or {}, vim.bo[bufnr].filetype) then
    return
  end
  local exe = M.missing_server()
  if exe then
    vim.notify_once('action-lsp: ' .. M.missing_message(exe), vim.log.levels.WARN)
  end
end

return M
