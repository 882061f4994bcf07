-- revline for Neovim: attaches `revline lsp` to buffers inside git repositories.
--
--   require('revline').setup({
--     cmd = { 'revline', 'lsp' },          -- the server command
--     settings = {                         -- the .revline.json keys, sent as initializationOptions
--       provider = 'openai', model = 'gpt-4o-mini', api_key_env = 'OPENAI_API_KEY',
--       review_scope = 'file', policy = { blocking_severity = 'MAJOR' },
--     },
--   })
--
-- Commands: :RevlineReview (this file), :RevlineReviewWorkspace, :RevlineClear,
-- :RevlineCancel (the running reviews).
-- Works with Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and
-- with 0.8+ (vim.lsp.start, one client per repository root).
local M = {}

local defaults = {
  cmd = { 'revline', 'lsp' },
  settings = {}, -- .revline.json keys (snake_case); override .revline.json
  filetypes = nil, -- nil: every file; or a list of filetypes
  autostart = true, -- attach on BufReadPost/BufNewFile (and BufWritePost, for a repository made since)
  capabilities = nil, -- nil: vim.lsp.protocol.make_client_capabilities()
  on_attach = nil, -- function(client, bufnr)
  name = 'revline',
  -- How a review is going, in the command line (Neovim shows no LSP progress by
  -- itself): "revline: reviewing a.py", then what it found, the verdict and the
  -- spend. false: nothing (a statusline or fidget.nvim shows the progress instead).
  show_progress = true,
}

M.config = vim.deepcopy(defaults)

local clients_by_root = {} -- Neovim 0.7: root -> client id
-- Buffers whose write attached them (opened before their repository existed: `git init`
-- afterwards), by bufnr -> root: that write is reviewed once their client is initialized.
local review_after_init = {}
local has_start = type(vim.lsp.start) == 'function' -- Neovim 0.8+
local method_calls = vim.fn.has('nvim-0.11') == 1 -- client:request() instead of client.request()

local function notify(msg, level)
  vim.notify('revline: ' .. msg, level or vim.log.levels.INFO)
end

local function is_dir(path)
  local stat = (vim.uv or vim.loop).fs_stat(path)
  return stat ~= nil and stat.type == 'directory'
end

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

local function repository_above(path)
  local dir = is_dir(path) and path or vim.fn.fnamemodify(path, ':h')
  dir = vim.fn.fnamemodify(dir, ':p'):gsub('/$', '')
  while dir ~= nil and dir ~= '' do
    if exists(dir .. '/.git') then -- a directory, or a file for worktrees and submodules
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

--- The git repository root that contains `path` (a file or a directory), or nil.
--- A link from outside any repository to a file in one (~/notes.py ->
--- ~/src/app/notes.py) is in the repository of the file it leads to.
function M.root_dir(path)
  if path == nil or path == '' then
    return nil
  end
  local root = repository_above(path)
  if root ~= nil then
    return root
  end
  local real = (vim.uv or vim.loop).fs_realpath(path)
  if real ~= nil and real ~= path then
    return repository_above(real)
  end
  return nil
end

local function wanted(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local ft = M.config.filetypes
  if ft ~= nil and not vim.tbl_contains(ft, vim.bo[bufnr].filetype) then
    return false
  end
  return vim.api.nvim_buf_get_name(bufnr) ~= ''
end

-- Settings as a JSON object: Neovim 0.7 encodes an empty Lua table as [] (an
-- array), which is not what "no settings" means.
local function as_object(settings)
  if settings == nil or next(settings) == nil then
    return vim.empty_dict()
  end
  return settings
end

--- The last progress text of a review (its end says findings, verdict and spend), or nil.
M.last_progress = nil

-- One line in the command line, cut to the room there is (a longer one would
-- ask the user to press Enter); not kept in :messages.
local function echo(text)
  local room = math.max(vim.v.echospace, 10)
  if vim.fn.strdisplaywidth(text) > room then
    -- Cut by screen cells, not characters: a wide character takes two.
    text = vim.fn.strcharpart(text, 0, room - 1)
    while vim.fn.strdisplaywidth(text) > room - 1 do
      text = vim.fn.strcharpart(text, 0, vim.fn.strchars(text) - 1)
    end
    text = text .. '…'
  end
  vim.api.nvim_echo({ { text } }, false, {})
end

-- $/progress: Neovim's own handler first (it keeps the progress for statuslines:
-- client.messages, vim.lsp.status()), then the text in the command line.
local function progress_handler(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  if default ~= nil then
    default(err, result, ctx, config)
  end
  local value = type(result) == 'table' and result.value or nil
  local text = type(value) == 'table' and (value.message or value.title) or nil
  if type(text) ~= 'string' then
    return
  end
  M.last_progress = text
  vim.schedule(function()
    echo('revline: ' .. text)
  end)
end

local function client_config(root)
  local capabilities = M.config.capabilities or vim.lsp.protocol.make_client_capabilities()
  return {
    name = M.config.name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = as_object(M.config.settings),
    capabilities = capabilities,
    handlers = M.config.show_progress and { ['$/progress'] = progress_handler } or nil,
    on_attach = M.config.on_attach,
    on_init = function()
      for bufnr, of in pairs(review_after_init) do
        if of == root then
          review_after_init[bufnr] = nil
          vim.schedule(function()
            if vim.api.nvim_buf_is_valid(bufnr) then -- not wiped while the server started
              M.review(bufnr)
            end
          end)
        end
      end
    end,
  }
end

--- Attaches the revline server to `bufnr` (default: the current buffer) if the
--- file is inside a git repository. Returns the client id, or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not wanted(bufnr) then
    return nil
  end
  local root = M.root_dir(vim.api.nvim_buf_get_name(bufnr))
  if root == nil then
    return nil
  end
  if has_start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  -- A client still initializing is reused too: 0.7's client_is_stopped() is true
  -- for it, and files opened at once (`nvim -O a b c`) each started a server.
  local running = id and vim.lsp.get_client_by_id(id)
  if running == nil or running.is_stopped() then
    id = vim.lsp.start_client(client_config(root))
    if id == nil then
      notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- The revline clients attached to `bufnr` (or all revline clients when bufnr is nil).
function M.clients(bufnr)
  local out = {}
  local list
  if vim.lsp.get_clients then -- 0.10+: buf_get_clients / get_active_clients are deprecated
    list = vim.lsp.get_clients(bufnr and { bufnr = bufnr } or nil)
  elseif bufnr then
    list = vim.lsp.buf_get_clients(bufnr)
  else
    list = vim.lsp.get_active_clients()
  end
  for _, client in pairs(list) do
    if client.name == M.config.name then
      table.insert(out, client)
    end
  end
  return out
end

local function request(client, method, params, handler, bufnr)
  if method_calls then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify_client(client, method, params)
  if method_calls then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- Runs one of the server's commands (workspace/executeCommand) on the revline
--- clients of `bufnr` (all clients when bufnr is nil); `on_done(err, result)`.
function M.execute(command, arguments, bufnr, on_done)
  local clients = M.clients(bufnr)
  if #clients == 0 then
    notify(bufnr and 'no revline server for this buffer (is it inside a git repository?)'
      or 'no revline server is running', vim.log.levels.WARN)
    return
  end
  for _, client in ipairs(clients) do
    request(client, 'workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
      if err and err.code == -32802 and type(err.data) == 'table' and err.data.cancelledFromEditor then
        notify(command .. ': cancelled', vim.log.levels.INFO) -- :RevlineCancel stopped it
      elseif err and err.code == -32802 then
        -- ServerCancelled: a newer review of the same file took its place; its result is what is shown.
        notify(command .. ': superseded by a newer review', vim.log.levels.INFO)
      elseif err then
        notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif result and type(result) == 'table' and result.findings then
        notify(string.format('%d finding%s', result.findings, result.findings == 1 and '' or 's'))
      end
      if on_done then
        on_done(err, result)
      end
    end, bufnr)
  end
end

--- Reviews the current buffer's file now (saving it first if modified).
function M.review(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].modified then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('silent write')
    end)
  end
  local uri = vim.uri_from_bufnr(bufnr)
  M.execute('revline.reviewFile', { { uri = uri } }, bufnr, on_done)
end

--- Reviews every change in the working tree of the current buffer's repository.
function M.review_workspace(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = M.root_dir(vim.api.nvim_buf_get_name(bufnr))
  local args = root and { { uri = vim.uri_from_fname(root) } } or {}
  M.execute('revline.reviewWorkspace', args, bufnr, on_done)
end

--- Clears revline's diagnostics (all files).
function M.clear(on_done)
  M.execute('revline.clearDiagnostics', {}, nil, on_done)
end

--- Cancels every review running or waiting in every revline server: the model
--- call in flight is given up and no further request is sent; the diagnostics
--- shown stay, and the next write reviews as usual. Neovim shows no cancel
--- button for a server's progress: this is it. `on_done(names)`: the reviews
--- cancelled (file paths, or "working tree of <folder>").
function M.cancel(on_done)
  -- One answer a server (M.execute says its errors); one notice once all have answered.
  local names, waiting = {}, #M.clients(nil)
  M.execute('revline.cancelReviews', {}, nil, function(err, result)
    if not err and type(result) == 'table' and type(result.reviews) == 'table' then
      vim.list_extend(names, result.reviews)
    end
    waiting = waiting - 1
    if waiting > 0 then
      return
    end
    if #names == 0 then
      notify('no review is running')
    else
      notify(string.format('cancelled %d review%s: %s', #names, #names == 1 and '' or 's', table.concat(names, ', ')))
    end
    if on_done then
      on_done(names)
    end
  end)
end

local islist = vim.islist or vim.tbl_islist

-- `over` merged into `base`: objects key by key; a list or a value replaces
-- (tbl_deep_extend merged lists by index: exclude {'c'} over {'a','b'} gave
-- {'c','b'}); vim.NIL removes the key.
local function merged_settings(base, over)
  local out = vim.deepcopy(base or {})
  for k, v in pairs(over or {}) do
    if v == vim.NIL then
      out[k] = nil
    elseif type(v) == 'table' and not islist(v) and type(out[k]) == 'table' and not islist(out[k]) then
      out[k] = merged_settings(out[k], v)
      -- An object emptied by removals is dropped: encoded, {} is a JSON list the server refuses.
      if next(out[k]) == nil then
        out[k] = nil
      end
    else
      out[k] = vim.deepcopy(v)
    end
  end
  return out
end

--- Sends new settings (.revline.json keys) to every running revline server:
--- merged into the current ones (a list replaces the old list, a key set to
--- vim.NIL is removed), or with { replace = true } in their place. The server
--- takes each notification as the whole of the editor's settings.
function M.update_settings(settings, opts)
  if opts and opts.replace then
    M.config.settings = merged_settings({}, settings)
  else
    M.config.settings = merged_settings(M.config.settings, settings)
  end
  for _, client in ipairs(M.clients(nil)) do
    notify_client(client, 'workspace/didChangeConfiguration', { settings = { revline = as_object(M.config.settings) } })
  end
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.settings then
    M.config.settings = opts.settings -- lists (exclude, blocking_categories) are taken as they are
  end

  vim.api.nvim_create_user_command('RevlineReview', function()
    M.review(0)
  end, { desc = 'revline: review the current file now' })
  vim.api.nvim_create_user_command('RevlineReviewWorkspace', function()
    M.review_workspace(0)
  end, { desc = 'revline: review every change in the working tree' })
  vim.api.nvim_create_user_command('RevlineClear', function()
    M.clear()
  end, { desc = "revline: clear revline's diagnostics" })
  vim.api.nvim_create_user_command('RevlineCancel', function()
    M.cancel()
  end, { desc = 'revline: cancel the running reviews' })

  if M.config.autostart then
    local group = vim.api.nvim_create_augroup('revline', { clear = true })
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    -- A buffer opened outside any repository, written after `git init`: attached
    -- now, and this write reviewed (the client's own didSave went to no server).
    vim.api.nvim_create_autocmd('BufWritePost', {
      group = group,
      callback = function(args)
        if #M.clients(args.buf) > 0 or not wanted(args.buf) then
          return
        end
        local root = M.root_dir(vim.api.nvim_buf_get_name(args.buf))
        if root == nil then
          return
        end
        review_after_init[args.buf] = root
        local id = M.attach(args.buf)
        local client = id and vim.lsp.get_client_by_id(id)
        if id == nil then
          review_after_init[args.buf] = nil
        elseif client and client.initialized then -- a client of this repository already runs
          review_after_init[args.buf] = nil
          vim.schedule(function()
            M.review(args.buf)
          end)
        end
      end,
    })
    if M.config.filetypes then
      vim.api.nvim_create_autocmd('FileType', {
        group = group,
        pattern = M.config.filetypes,
        callback = function(args)
          M.attach(args.buf)
        end,
      })
    end
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) then
        M.attach(buf)
      end
    end
  end
end

return M
