-- Headless Neovim: revline as a new user sets it up, `require('revline').setup{}`
-- with no settings (only `cmd`, since the binary is not on PATH here), the
-- default asynchronous server. Then what users do next:
--   1. edit + :write -> a diagnostic;
--   2. a stale fix: get the fix, change the line, apply the old fix -> Neovim
--      refuses it (version), the text is the user's;
--   3. reopen the file (:bwipeout, :edit) -> the diagnostic is back without a save;
--   4. restart the server -> the cached review is shown without a save, with no provider call;
--   5. git stash, and Neovim reloads the file (:checktime) -> the finding goes, and a line
--      typed above its old line does not bring it back;
--   6. git stash pop, then a commit in a terminal -> the finding goes without a save (Neovim
--      watches no files: the server looks at git's state itself);
--   7. the 0.11 `lsp/revline.lua` and the lspconfig config start a server that initializes
--      (their init_options: none, or an empty table, which Neovim 0.7 sends as []).
-- Exits 0 on success, 1 with a message on stderr.
local TIMEOUT = 10000
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local h = dofile(here .. '/nvim_test_helpers.lua')('nvim-default-test', TIMEOUT)
local log, check, check_eq, sh, wait_for = h.log, h.check, h.check_eq, h.sh, h.wait_for
local revline_diagnostics = h.revline_diagnostics

local repo, repo2
local function run()
  local binary = os.getenv('REVLINE_BINARY')
  local plugin = os.getenv('REVLINE_NVIM_PLUGIN')
  check(binary ~= nil and vim.fn.executable(binary) == 1, 'REVLINE_BINARY: ' .. tostring(binary))
  repo = vim.fn.resolve(vim.fn.tempname() .. '-revline-default')
  vim.fn.mkdir(repo .. '/src', 'p')
  sh('git init -q && git config user.email t@example.com && git config user.name t && git config commit.gpgsign false', repo)
  local file = repo .. '/src/Order.java'
  vim.fn.writefile({ 'class Order {', '  boolean approved(String status) {', '    return false;', '  }', '}' }, file)
  sh('git add . && git commit -q -m init', repo)

  vim.opt.runtimepath:prepend(plugin)
  local revline = require('revline')
  revline.setup({ cmd = { binary, 'lsp' } }) -- no settings: init_options must still be an object

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the revline client to initialize', function()
    local c = revline.clients(bufnr)[1]
    return c ~= nil and c.initialized ~= false and c.server_capabilities ~= nil
  end)
  local client = revline.clients(bufnr)[1]
  log('setup{} without settings: client ' .. client.id .. ' initialized')

  -- 1. Edit and write.
  vim.api.nvim_buf_set_lines(bufnr, 2, 2, false, { '    if (status == "APPROVED") {', '      return true;', '    }' })
  vim.cmd('silent write')
  wait_for('a revline diagnostic after :write', function()
    return #revline_diagnostics(bufnr) == 1
  end)
  check_eq(revline_diagnostics(bufnr)[1].lnum, 2, 'diagnostic line')

  -- 2. A stale fix.
  local d = revline_diagnostics(bufnr)[1]
  local lsp_diag = {
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    message = d.message,
    source = d.source,
    data = d.user_data and d.user_data.lsp and d.user_data.lsp.data, -- the finding id, as Neovim sends it back
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag } },
  }, TIMEOUT)
  local fix
  for _, r in pairs(responses or {}) do
    for _, a in ipairs(r.result or {}) do
      if a.edit and fix == nil then
        fix = a
      end
    end
  end
  check(fix ~= nil, 'a fix is offered')
  check(fix.edit.documentChanges ~= nil and fix.edit.documentChanges[1].textDocument.version ~= nil,
    'the fix is a versioned documentChanges edit: ' .. vim.inspect(fix.edit))
  local changed = '    if (status == "APPROVED" || status == "OPEN") {'
  vim.api.nvim_buf_set_lines(bufnr, 2, 3, false, { changed })
  vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
  check_eq(vim.api.nvim_buf_get_lines(bufnr, 2, 3, false)[1], changed, 'line 3 after applying a stale fix')
  log('stale fix refused by Neovim; the text is the user\'s')
  vim.cmd('silent edit!') -- back to the saved text

  -- 3. Reopen: the finding is back without a save.
  local function reopen(what)
    vim.cmd('bwipeout!')
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    local buf = vim.api.nvim_get_current_buf()
    wait_for('the cached finding after ' .. what, function()
      return #revline_diagnostics(buf) == 1
    end)
    return buf
  end
  bufnr = reopen('reopening')
  log('reopened: the finding is shown without a save')

  -- 4. Restart the server: the cached review, no provider call.
  for _, c in ipairs(revline.clients(nil)) do
    c.stop()
  end
  wait_for('the server to stop', function()
    return #revline.clients(nil) == 0
  end)
  bufnr = reopen('a restart')
  local stats = vim.lsp.buf_request_sync(bufnr, 'revline/stats', {}, TIMEOUT)
  for _, r in pairs(stats or {}) do
    check_eq(r.result and r.result.providerCalls, 0, 'provider calls of the restarted server')
  end
  log('restarted: the cached finding is shown, no provider call')

  -- 5. The change stashed: the file equals HEAD, and Neovim reloads it (didClose, didOpen).
  sh('git stash -q', repo)
  vim.o.autoread = true
  vim.cmd('silent checktime')
  wait_for('the finding to go after git stash and :checktime', function()
    return #revline_diagnostics(bufnr) == 0
  end)
  vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { '// typed above' })
  vim.wait(1000, function()
    return #revline_diagnostics(bufnr) > 0
  end, 20)
  check_eq(#revline_diagnostics(bufnr), 0, 'revline diagnostics after typing a line at the top')
  vim.cmd('silent edit!')
  log('stashed and reloaded: the finding is gone and stays gone')

  -- 6. Committed in a terminal. Neovim registers no file watchers (none on Linux
  --    in any version), so the server looks at git's index and HEAD itself.
  sh('git stash pop -q', repo)
  vim.cmd('silent checktime')
  wait_for('the finding back after git stash pop', function()
    return #revline_diagnostics(bufnr) == 1
  end)
  sh('git commit -q -a -m done', repo)
  wait_for('the finding to go after a commit in a terminal, with no save', function()
    return #revline_diagnostics(bufnr) == 0
  end)
  log('committed in a terminal: the finding went without a save')

  -- 7. The 0.11 config and the lspconfig config, started as those would start them.
  local configs = {
    ['lsp/revline.lua'] = dofile(plugin .. '/lsp/revline.lua'),
    ['lspconfig'] = require('revline.lspconfig').default_config,
    ['init_options = {}'] = { init_options = {} },
  }
  for name, config in pairs(configs) do
    local errors = {}
    local id = vim.lsp.start_client({
      name = 'revline-config-check',
      cmd = { binary, 'lsp' },
      root_dir = repo,
      init_options = config.init_options,
      on_error = function(code, err)
        table.insert(errors, tostring(code) .. ' ' .. vim.inspect(err))
      end,
    })
    check(id ~= nil, name .. ': client started')
    wait_for(name .. ': initialize answered', function()
      local c = vim.lsp.get_client_by_id(id)
      return #errors > 0 or (c ~= nil and c.server_capabilities ~= nil and c.initialized ~= false)
    end)
    check(#errors == 0, name .. ': ' .. table.concat(errors, '; '))
    vim.lsp.get_client_by_id(id).stop()
    log(name .. ': initializes')
  end

  -- 8. Several files opened before the first server has initialized (`nvim -O a b c`, a
  --    session restored): one server for the repository, every buffer attached to it.
  --    Neovim 0.7's client_is_stopped() is true for a client still initializing, so each
  --    buffer started a server of its own, and each counted its own session totals.
  repo2 = vim.fn.resolve(vim.fn.tempname() .. '-revline-several')
  vim.fn.mkdir(repo2, 'p')
  sh('git init -q && git config user.email t@example.com && git config user.name t && git config commit.gpgsign false', repo2)
  local several = {}
  for i = 1, 3 do
    several[i] = repo2 .. '/f' .. i .. '.py'
    vim.fn.writefile({ 'X' .. i .. ' = ' .. i }, several[i])
  end
  sh('git add . && git commit -q -m init', repo2)
  for _, f in ipairs(several) do -- one block: no event is handled between the opens
    vim.cmd('edit ' .. vim.fn.fnameescape(f))
  end
  local function servers_of_repo2()
    local ids = {}
    for _, c in ipairs(revline.clients()) do
      if c.config.root_dir == repo2 then
        ids[#ids + 1] = c.id
      end
    end
    return ids
  end
  wait_for('a revline server of the second repository to initialize', function()
    return #servers_of_repo2() > 0
  end)
  local server = servers_of_repo2()[1]
  for _, f in ipairs(several) do -- each buffer on that one server (on its own one, before)
    wait_for(f .. ' attached', function()
      return #revline.clients(vim.fn.bufnr(f)) > 0
    end)
    local attached = revline.clients(vim.fn.bufnr(f))
    check(#attached == 1 and attached[1].id == server, f .. ' attached to the repository\'s one server')
  end
  check_eq(#servers_of_repo2(), 1, 'revline servers of one repository whose files were opened at once')
  log('several files opened at once: one server')
  log('all checks passed')
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  io.stderr:write('nvim-default-test: ' .. tostring(err) .. '\n')
end
for _, c in ipairs(vim.lsp.get_active_clients()) do
  c.stop()
end
vim.wait(3000, function()
  return #vim.lsp.get_active_clients() == 0
end, 20)
for _, dir in ipairs({ repo or false, repo2 or false }) do
  if dir then
    vim.fn.delete(dir, 'rf')
  end
end
vim.cmd(ok and 'qall!' or 'cquit 1')
