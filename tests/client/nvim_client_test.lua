-- Headless Neovim test of editors/nvim against the real `revline lsp`.
--
--   REVLINE_BINARY=/path/to/revline REVLINE_NVIM_PLUGIN=/path/to/editors/nvim \
--     nvim --headless -u NONE -i NONE -n -c 'luafile tests/client/nvim_client_test.lua'
--
-- Creates a temporary git repository with a committed Java file, opens it,
-- edits and writes it, waits for revline's diagnostics, checks their lines and
-- messages, requests the code actions on the finding, applies the fix and
-- checks the buffer's text; then :RevlineClear and :RevlineReview. Exits 0 on
-- success, 1 with a message on stderr on failure. Works on Neovim 0.7+.
local TIMEOUT = 30000
local failed = false
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local h = dofile(here .. '/nvim_test_helpers.lua')('nvim-client-test', TIMEOUT)
local log, fail, check, check_eq, sh, wait_for, spy = h.log, h.fail, h.check, h.check_eq, h.sh, h.wait_for, h.spy
local revline_diagnostics = h.revline_diagnostics

local function lsp_code(d)
  if d.code ~= nil then
    return d.code
  end
  return d.user_data and d.user_data.lsp and d.user_data.lsp.code
end

local repo

local function run()
  local binary = os.getenv('REVLINE_BINARY')
  local plugin = os.getenv('REVLINE_NVIM_PLUGIN')
  check(binary ~= nil and vim.fn.executable(binary) == 1, 'set REVLINE_BINARY to the revline executable, got ' .. tostring(binary))
  check(plugin ~= nil and vim.fn.isdirectory(plugin) == 1, 'set REVLINE_NVIM_PLUGIN to editors/nvim, got ' .. tostring(plugin))
  log(vim.split(vim.fn.execute('version'), '\n', { trimempty = true })[1])

  -- A git repository with a committed Java file.
  repo = vim.fn.resolve(vim.fn.tempname() .. '-revline-nvim')
  vim.fn.mkdir(repo .. '/src', 'p')
  sh('git init -q && git config user.email test@example.com && git config user.name test'
    .. ' && git config commit.gpgsign false', repo)
  local file = repo .. '/src/Order.java'
  vim.fn.writefile({ 'class Order {', '  boolean approved(String status) {', '    return false;', '  }', '}' }, file)
  sh('git add . && git commit -q -m init', repo)

  -- The plugin, as a user sets it up (the test adds --sync: deterministic reviews).
  vim.opt.runtimepath:prepend(plugin)
  local revline = require('revline')
  revline.setup({
    cmd = { binary, 'lsp', '--sync' },
    settings = { provider = 'builtin', review_scope = 'file', policy = { blocking_severity = 'MAJOR' } },
  })
  check(vim.fn.exists(':RevlineReview') == 2, ':RevlineReview is defined')
  check(vim.fn.exists(':RevlineClear') == 2, ':RevlineClear is defined')
  check(revline.root_dir(file) == repo, 'root_dir(' .. file .. ') is ' .. tostring(revline.root_dir(file)))
  -- A link from outside any repository to a file in one: that file's repository.
  local link = vim.fn.tempname() .. '-link.java'
  check((vim.uv or vim.loop).fs_symlink(file, link), 'made the link ' .. link)
  check(revline.root_dir(link) == repo, 'root_dir(' .. link .. ') is ' .. tostring(revline.root_dir(link)))

  -- A file outside any git repository gets no client.
  local outside = vim.fn.tempname() .. '.txt'
  vim.fn.writefile({ 'x' }, outside)
  vim.cmd('edit ' .. vim.fn.fnameescape(outside))
  check(#revline.clients(vim.api.nvim_get_current_buf()) == 0, 'no revline client outside a git repository')

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the revline client to attach and initialize', function()
    local clients = revline.clients(bufnr)
    return #clients == 1 and clients[1].initialized ~= false and clients[1].server_capabilities ~= nil
  end)
  local client = revline.clients(bufnr)[1]
  log('attached client ' .. client.id .. ' (' .. client.name .. ')')

  -- Edit: add a String comparison with ==, and write.
  local echoed = {}
  local unspy_echo = spy(vim.api, 'nvim_echo', function(chunks)
    table.insert(echoed, chunks[1][1])
  end)
  vim.api.nvim_buf_set_lines(bufnr, 2, 2, false, { '    if (status == "APPROVED") {', '      return true;', '    }' })
  vim.cmd('silent write')
  wait_for('revline diagnostics after :write', function()
    return #revline_diagnostics(bufnr) > 0
  end)
  -- The review's progress is said in the command line (Neovim shows none by itself): its end,
  -- what it found and the verdict. Before, a write whose review found nothing said nothing.
  wait_for('the review\'s end in the command line', function()
    return vim.tbl_contains(echoed, 'revline: 1 finding, verdict COMMENT')
  end)
  unspy_echo()
  check_eq(revline.last_progress, '1 finding, verdict COMMENT', 'revline.last_progress')
  local diags = revline_diagnostics(bufnr)
  check_eq(#diags, 1, 'number of revline diagnostics')
  local d = diags[1]
  check_eq(d.lnum, 2, 'diagnostic line (0-based)')
  check_eq(d.end_lnum, 2, 'diagnostic end line (0-based)')
  -- string-identity is below the blocking bar (docs/PERFORMANCE.md): MINOR, an Information.
  check_eq(d.severity, vim.diagnostic.severity.INFO, 'severity (MINOR -> Information)')
  check_eq(lsp_code(d), 'CORRECTNESS', 'diagnostic code')
  check(d.message:find('String compared with == / != instead of equals()', 1, true) == 1,
    'message starts with the title: ' .. d.message)
  check(d.message:find('%(confidence 0%.6') ~= nil, 'message ends with the confidence: ' .. d.message)
  log('diagnostic: line ' .. (d.lnum + 1) .. ': ' .. vim.split(d.message, '\n')[1])

  -- Hover on the line.
  local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 2, character = 6 },
  }, TIMEOUT)
  local hover_text
  for _, r in pairs(hover or {}) do
    if r.result and r.result.contents then
      hover_text = r.result.contents.value or vim.inspect(r.result.contents)
    end
  end
  check(hover_text ~= nil and hover_text:find('instead of equals', 1, true) ~= nil,
    'hover explains the finding: ' .. tostring(hover_text))

  -- Code actions at the finding.
  local lsp_diag = {
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    severity = 2,
    message = d.message,
    source = d.source,
    code = lsp_code(d),
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag } },
  }, TIMEOUT)
  check(responses ~= nil, 'textDocument/codeAction answered')
  local fix, titles = nil, {}
  for _, r in pairs(responses) do
    check(r.err == nil, 'codeAction error: ' .. vim.inspect(r.err))
    for _, action in ipairs(r.result or {}) do
      table.insert(titles, action.title)
      if action.kind == 'quickfix' and action.edit and fix == nil then
        fix = action
      end
    end
  end
  check(fix ~= nil, 'a quickfix with an edit among ' .. vim.inspect(titles))
  check(vim.tbl_contains(titles, 'Dismiss this finding'), '"Dismiss this finding" among ' .. vim.inspect(titles))
  log('applying: ' .. fix.title)
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding or 'utf-16')
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  check_eq(lines[3], '    if ("APPROVED".equals(status)) {', 'line 3 after the fix')
  check_eq(table.concat(lines, '\n'), table.concat({
    'class Order {',
    '  boolean approved(String status) {',
    '    if ("APPROVED".equals(status)) {',
    '      return true;',
    '    }',
    '    return false;',
    '  }',
    '}',
  }, '\n'), 'buffer after the fix')
  wait_for('the applied fix to clear its diagnostic', function()
    return #revline_diagnostics(bufnr) == 0
  end)

  -- Undo the fix, write: the finding is back; :RevlineClear clears it; :RevlineReview brings it back.
  vim.api.nvim_buf_set_lines(bufnr, 2, 3, false, { '    if (status == "APPROVED") {' })
  vim.cmd('silent write')
  wait_for('the finding after undoing the fix', function()
    return #revline_diagnostics(bufnr) == 1
  end)
  vim.cmd('RevlineClear')
  wait_for(':RevlineClear to clear the diagnostics', function()
    return #revline_diagnostics(bufnr) == 0
  end)
  vim.cmd('RevlineReview')
  wait_for(':RevlineReview to publish the finding again', function()
    return #revline_diagnostics(bufnr) == 1
  end)
  check_eq(revline_diagnostics(bufnr)[1].lnum, 2, 'line after :RevlineReview')

  -- update_settings: a list replaces the old list, vim.NIL removes a key, replace = true replaces all;
  -- what the servers are sent is the result (they take each notification whole).
  local sent
  local notify_of = client.notify
  client.notify = function(...)
    local args = { ... }
    local params = type(args[1]) == 'table' and args[3] or args[2]
    if (type(args[1]) == 'table' and args[2] or args[1]) == 'workspace/didChangeConfiguration' then
      sent = params.settings.revline
    end
    return notify_of(...)
  end
  revline.update_settings({ exclude = { 'a/**', 'b/**' } })
  revline.update_settings({ exclude = { 'c/**' } })
  check(vim.deep_equal(sent.exclude, { 'c/**' }), 'a list replaces the old one: ' .. vim.inspect(sent.exclude))
  check_eq(sent.policy.blocking_severity, 'MAJOR', 'an object is merged key by key')
  revline.update_settings({ review_scope = vim.NIL })
  check(sent.review_scope == nil and sent.provider == 'builtin', 'vim.NIL removes a key: ' .. vim.inspect(sent))
  revline.update_settings({ policy = { blocking_severity = vim.NIL } })
  check(sent.policy == nil, 'an object emptied by removals is dropped, not sent as a JSON list: ' .. vim.inspect(sent))
  revline.update_settings({ provider = 'builtin' }, { replace = true })
  check(vim.deep_equal(sent, { provider = 'builtin' }), 'replace = true: ' .. vim.inspect(sent))
  client.notify = notify_of

  -- A :RevlineReview that fails (the model's server is not running) is told once, with what the
  -- diagnostics shown are; and they stay. Notices are counted where Neovim shows them: vim.notify,
  -- and the window/showMessage handler (which shows through its own path on some versions).
  local probe = vim.loop.new_tcp()
  probe:bind('127.0.0.1', 0)
  local closed_port = probe:getsockname().port
  probe:close()
  revline.update_settings({ provider = 'ollama', model = 'none', base_url = 'http://127.0.0.1:' .. closed_port },
    { replace = true })
  local notices, shown = {}, {}
  local unspy_notify = spy(vim, 'notify', function(msg, level)
    table.insert(notices, { msg = msg, level = level })
  end)
  local unspy_show = spy(vim.lsp.handlers, 'window/showMessage', function(_, result)
    table.insert(shown, result and result.message)
  end)
  local review_done
  revline.review(bufnr, function(err)
    review_done = err or false
  end)
  wait_for('the failed review to be answered', function()
    return review_done ~= nil
  end)
  -- The server writes in order: once this request is answered, any message sent before it has been handled.
  vim.lsp.buf_request_sync(bufnr, 'revline/stats', vim.empty_dict(), TIMEOUT)
  unspy_notify()
  unspy_show()
  check(review_done ~= false and review_done.code == -32803, 'the review fails: ' .. vim.inspect(review_done))
  check_eq(#shown, 0, 'window/showMessage beside the failed command (' .. vim.inspect(shown) .. ')')
  local errors = vim.tbl_filter(function(n)
    return n.level == vim.log.levels.ERROR
  end, notices)
  check_eq(#errors, 1, 'error notices for one failed :RevlineReview (' .. vim.inspect(notices) .. ')')
  check(errors[1].msg:find('revline.reviewFile: ', 1, true) ~= nil
    and errors[1].msg:find('127.0.0.1:' .. closed_port, 1, true) ~= nil
    and errors[1].msg:find('diagnostics shown are from earlier reviews', 1, true) ~= nil,
    'the notice names the command, the server and what is shown: ' .. errors[1].msg)
  check(errors[1].msg:find(': revline: ', 1, true) == nil, 'the notice names revline once: ' .. errors[1].msg)
  check_eq(#revline_diagnostics(bufnr), 1, 'the earlier review\'s finding stays after the failure')
  revline.update_settings({ provider = 'builtin' }, { replace = true })

  -- A buffer opened before its folder was a repository: once `git init` there, its next
  -- write attaches it and is reviewed (before, it never was until the buffer was reopened).
  local later = vim.fn.resolve(vim.fn.tempname() .. '-revline-later')
  vim.fn.mkdir(later, 'p')
  vim.fn.writefile({ 'x = 1' }, later .. '/settings.py')
  vim.cmd('edit ' .. vim.fn.fnameescape(later .. '/settings.py'))
  local later_buf = vim.api.nvim_get_current_buf()
  check(#revline.clients(later_buf) == 0, 'no revline client before git init')
  sh('git init -q', later)
  vim.api.nvim_buf_set_lines(later_buf, 1, 1, false, { 'db_password = "hunter2secret"' })
  vim.cmd('silent write')
  wait_for('revline diagnostics on the first write after git init', function()
    return #revline_diagnostics(later_buf) > 0
  end)
  check_eq(revline_diagnostics(later_buf)[1].lnum, 1, 'the finding on the written line (0-based)')
  vim.cmd('bwipeout!')
  vim.fn.delete(later, 'rf')

  -- :RevlineCancel stops a review whose model does not answer (Neovim shows no cancel button
  -- for a server's progress): a server without --sync, a "model" on 127.0.0.1 that takes the
  -- request and never answers; revline gives up the call at once, and the review's command is
  -- answered ServerCancelled saying so: its caller is called back, and no failure is said.
  local hung = vim.loop.new_tcp()
  hung:bind('127.0.0.1', 0)
  local asked, given_up = {}, 0
  hung:listen(16, function()
    local conn = vim.loop.new_tcp()
    hung:accept(conn)
    table.insert(asked, conn)
    conn:read_start(function(_, data)
      if data == nil then -- revline closed the connection: the model call was given up
        given_up = given_up + 1
      end
    end)
  end)
  local slow = vim.fn.resolve(vim.fn.tempname() .. '-revline-slow')
  vim.fn.mkdir(slow, 'p')
  sh('git init -q && git config user.email test@example.com && git config user.name test'
    .. ' && git config commit.gpgsign false', slow)
  vim.fn.writefile({ 'x = 1' }, slow .. '/app.py')
  sh('git add . && git commit -q -m init', slow)
  vim.fn.writefile({ 'x = 2' }, slow .. '/app.py')
  local cmd_before, settings_before = revline.config.cmd, revline.config.settings
  revline.config.cmd = { binary, 'lsp' }
  revline.config.settings = { provider = 'ollama', model = 'none', base_url = 'http://127.0.0.1:' .. hung:getsockname().port }
  vim.cmd('edit ' .. vim.fn.fnameescape(slow .. '/app.py'))
  local slow_buf = vim.api.nvim_get_current_buf()
  revline.config.cmd, revline.config.settings = cmd_before, settings_before
  wait_for('a revline client for the slow repository', function()
    local c = revline.clients(slow_buf)[1]
    return c ~= nil and c.initialized
  end)
  local cancel_notices = {}
  local unspy_cancel_notify = spy(vim, 'notify', function(msg)
    table.insert(cancel_notices, msg)
  end)
  local slow_review
  revline.review(slow_buf, function(err)
    slow_review = err or false
  end)
  wait_for('the review to ask the model', function()
    return #asked > 0
  end)
  check(slow_review == nil, 'the review waits for the model')
  check(vim.fn.exists(':RevlineCancel') == 2, ':RevlineCancel is defined')
  vim.cmd('RevlineCancel')
  wait_for(':RevlineCancel to say what it cancelled', function()
    return vim.tbl_contains(cancel_notices, 'revline: cancelled 1 review: app.py')
  end)
  wait_for('revline to give up the model call', function()
    return given_up == #asked
  end)
  wait_for('the cancelled review\'s caller to be called back', function()
    return slow_review ~= nil
  end)
  check(slow_review ~= false and slow_review.code == -32802 and slow_review.data.cancelledFromEditor == true,
    'the review is answered as cancelled from the editor: ' .. vim.inspect(slow_review))
  check(vim.tbl_contains(cancel_notices, 'revline: revline.reviewFile: cancelled'),
    'the command says it was cancelled: ' .. vim.inspect(cancel_notices))
  check(#vim.tbl_filter(function(n)
    return n:find('failed', 1, true) ~= nil
  end, cancel_notices) == 0, 'no failure said: ' .. vim.inspect(cancel_notices))
  cancel_notices = {}
  vim.cmd('RevlineCancel')
  wait_for('a second :RevlineCancel to find nothing running', function()
    return vim.tbl_contains(cancel_notices, 'revline: no review is running')
  end)
  unspy_cancel_notify()
  for _, conn in ipairs(asked) do
    conn:close()
  end
  hung:close()
  vim.cmd('bwipeout!')
  vim.fn.delete(slow, 'rf')

  -- The ready configs load: Neovim 0.11's lsp/revline.lua and the nvim-lspconfig registration
  -- (against a stub of lspconfig's two modules; the real ones are not installed here).
  local config = dofile(plugin .. '/lsp/revline.lua')
  check(vim.deep_equal(config.cmd, { 'revline', 'lsp' }), 'lsp/revline.lua cmd: ' .. vim.inspect(config.cmd))
  check(vim.deep_equal(config.root_markers, { '.git' }), 'lsp/revline.lua root_markers')
  check(type(config.on_attach) == 'function', 'lsp/revline.lua on_attach')
  local marker
  package.loaded['lspconfig.configs'] = {}
  package.loaded['lspconfig.util'] = {
    root_pattern = function(m)
      marker = m
      return function() end
    end,
  }
  local registered = require('revline.lspconfig').register()
  check(registered == package.loaded['lspconfig.configs'].revline, 'lspconfig: configs.revline registered')
  check(vim.deep_equal(registered.default_config.cmd, { 'revline', 'lsp' }), 'lspconfig: cmd')
  check_eq(marker, '.git', 'lspconfig: root_pattern')
  log('all checks passed')
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failed = true
  io.stderr:write('nvim-client-test: ' .. tostring(err) .. '\n')
  local log_path = vim.lsp.get_log_path and vim.lsp.get_log_path() or ''
  io.stderr:write('nvim-client-test: LSP log: ' .. log_path .. '\n')
end

-- Stop the servers (shutdown + exit) before leaving.
local stop = vim.lsp.get_clients or vim.lsp.get_active_clients
for _, c in ipairs(stop()) do
  if vim.fn.has('nvim-0.11') == 1 then
    c:stop()
  else
    c.stop()
  end
end
vim.wait(3000, function()
  return #stop() == 0
end, 20)
if repo then
  vim.fn.delete(repo, 'rf')
end
if failed then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
