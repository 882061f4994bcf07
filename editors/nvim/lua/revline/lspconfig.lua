-- revline for nvim-lspconfig users: registers a `revline` server config.
--
--   require('revline.lspconfig').register()
--   require('lspconfig').revline.setup({
--     init_options = { provider = 'openai', model = 'gpt-4o-mini' },  -- .revline.json keys
--   })
--
-- (nvim-lspconfig attaches it to buffers whose root has a .git; every filetype.)
local M = {}

M.default_config = {
  cmd = { 'revline', 'lsp' },
  filetypes = nil, -- every filetype: revline reviews whatever the diff touches
  single_file_support = false,
  -- No init_options: none are sent (an empty Lua table would go out as [] on Neovim 0.7).
}

function M.register()
  local configs = require('lspconfig.configs')
  local util = require('lspconfig.util')
  if configs.revline == nil then
    local default_config = vim.deepcopy(M.default_config)
    default_config.root_dir = util.root_pattern('.git')
    configs.revline = {
      default_config = default_config,
      docs = {
        description = 'revline: AI code review of the git working-tree diff on save (`revline lsp`).',
      },
    }
  end
  return configs.revline
end

return M
