-- Neovim 0.11+: `vim.lsp.config` / `vim.lsp.enable` configuration for revline.
-- Put editors/nvim on your 'runtimepath' (or copy this file to
-- ~/.config/nvim/lsp/revline.lua), then in init.lua:
--
--   vim.lsp.enable('revline')
--   -- optional settings (the .revline.json keys):
--   vim.lsp.config('revline', { init_options = { provider = 'ollama', model = 'qwen2.5-coder' } })
--
-- The server starts for files inside a git repository (the root is the
-- directory that holds .git) and reviews the working-tree diff on save.
return {
  cmd = { 'revline', 'lsp' },
  root_markers = { '.git' },
  -- Every filetype: revline reviews whatever the diff touches.
  -- No init_options: none are sent (an empty Lua table would go out as [] on Neovim 0.7).
  on_attach = function(client, bufnr)
    local function exec(command, args)
      client:request('workspace/executeCommand', { command = command, arguments = args }, function(err, result)
        if err and err.code == -32802 then
          -- ServerCancelled: :RevlineCancel stopped it, or a newer review of the same file took its place.
          local cancelled = type(err.data) == 'table' and err.data.cancelledFromEditor
          vim.notify('revline: ' .. command .. (cancelled and ': cancelled' or ': superseded by a newer review'),
            vim.log.levels.INFO)
        elseif err then
          vim.notify('revline: ' .. err.message, vim.log.levels.ERROR)
        elseif type(result) == 'table' and result.findings then
          vim.notify(('revline: %d finding(s)'):format(result.findings))
        elseif type(result) == 'table' and type(result.reviews) == 'table' then
          vim.notify(#result.reviews == 0 and 'revline: no review is running'
            or 'revline: cancelled ' .. table.concat(result.reviews, ', '))
        end
      end, bufnr)
    end
    vim.api.nvim_buf_create_user_command(bufnr, 'RevlineReview', function()
      if vim.bo[bufnr].modified then
        vim.cmd('silent write')
      end
      exec('revline.reviewFile', { { uri = vim.uri_from_bufnr(bufnr) } })
    end, { desc = 'revline: review the current file now' })
    vim.api.nvim_buf_create_user_command(bufnr, 'RevlineReviewWorkspace', function()
      exec('revline.reviewWorkspace', { { uri = vim.uri_from_fname(client.root_dir or vim.fn.getcwd()) } })
    end, { desc = 'revline: review every change in the working tree' })
    vim.api.nvim_buf_create_user_command(bufnr, 'RevlineClear', function()
      exec('revline.clearDiagnostics', {})
    end, { desc = "revline: clear revline's diagnostics" })
    vim.api.nvim_buf_create_user_command(bufnr, 'RevlineCancel', function()
      exec('revline.cancelReviews', {})
    end, { desc = 'revline: cancel the running reviews' })
  end,
}
