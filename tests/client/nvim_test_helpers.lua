-- Shared by the headless Neovim client tests: logging, checks, shell, waiting, spying.
--   local h = dofile(<this file>)('nvim-client-test', 30000)
return function(name, timeout)
  local h = {}
  function h.log(msg)
    io.stdout:write(name .. ': ' .. msg .. '\n')
    io.stdout:flush()
  end
  function h.fail(msg)
    error('FAILED: ' .. msg, 0)
  end
  function h.check(cond, msg)
    if not cond then
      h.fail(msg)
    end
  end
  function h.check_eq(actual, expected, what)
    if actual ~= expected then
      h.fail(string.format('%s: expected %s, got %s', what, vim.inspect(expected), vim.inspect(actual)))
    end
  end
  function h.sh(cmd, cwd)
    local full = cwd and ('cd ' .. vim.fn.shellescape(cwd) .. ' && ' .. cmd) or cmd
    local out = vim.fn.system(full)
    if vim.v.shell_error ~= 0 then
      h.fail('command failed (' .. vim.v.shell_error .. '): ' .. full .. '\n' .. out)
    end
    return out
  end
  function h.wait_for(what, predicate)
    if not vim.wait(timeout, predicate, 10) then
      h.fail('timed out after ' .. timeout .. ' ms waiting for ' .. what)
    end
  end
  -- Wraps t[key], a function: `seen` is called with its arguments, then the
  -- original. Returns a function that puts the original back.
  function h.spy(t, key, seen)
    local original = t[key]
    t[key] = function(...)
      seen(...)
      return original(...)
    end
    return function()
      t[key] = original
    end
  end
  function h.revline_diagnostics(bufnr)
    return vim.tbl_filter(function(d)
      return d.source == 'revline'
    end, vim.diagnostic.get(bufnr))
  end
  return h
end
