-- revline: nothing starts until require('revline').setup{...} is called
-- (see editors/nvim/README.md). This file only guards against loading twice.
if vim.g.loaded_revline then
  return
end
vim.g.loaded_revline = true
