;;; revline.el --- AI code review on save through revline's language server  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The revline authors
;; SPDX-License-Identifier: MIT

;; Author: The revline authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages, convenience
;; URL: https://github.com/revline/revline

;;; Commentary:

;; Registers `revline lsp' with eglot.  Every time you save a file inside a
;; git repository, revline reviews the working-tree diff and publishes the
;; findings as diagnostics (Flymake) on the changed lines; M-x
;; eglot-code-actions offers "Apply revline fix" and "Dismiss this finding".
;;
;; Setup (Emacs 29+ has eglot built in; on Emacs 28, install eglot first,
;; e.g. Debian's elpa-eglot or M-x package-install RET eglot):
;;
;;   (add-to-list 'load-path "/path/to/revline/editors/emacs")
;;   (require 'revline)
;;   (setq revline-settings '(:provider "builtin"))  ; .revline.json keys
;;   (revline-eglot-setup)
;;   ;; then M-x eglot in a file of the repository, or, for every file:
;;   ;; (add-hook 'prog-mode-hook #'eglot-ensure)
;;
;; Eglot runs one language server per buffer: revline takes over the major
;; modes in `revline-major-modes' (and their derived modes) from other eglot
;; servers.  Narrow that list to the languages you want reviewed.
;;
;; Commands: `revline-review-file', `revline-review-workspace',
;; `revline-clear', `revline-send-settings'.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'cl-lib)

(defgroup revline nil
  "AI code review of the git working-tree diff, through `revline lsp'."
  :group 'tools
  :prefix "revline-")

(defcustom revline-executable "revline"
  "The revline executable: a command name in `exec-path' or an absolute path."
  :type 'string)

(defcustom revline-major-modes '(prog-mode text-mode conf-mode)
  "Major modes (and the modes derived from them) that eglot connects to revline."
  :type '(repeat symbol))

(defcustom revline-settings nil
  "Settings sent to the server, as a plist of `.revline.json' keys.
For example: (:provider \"openai\" :model \"gpt-4o-mini\"
:api_key_env \"OPENAI_API_KEY\" :review_scope \"file\"
:policy (:blocking_severity \"MAJOR\")).  Arrays are vectors:
(:exclude [\"vendor/**\"]).  They override `.revline.json'."
  :type 'plist)

(defun revline--contact (&optional _interactive)
  "The eglot contact for revline: the command and its initializationOptions."
  (list revline-executable "lsp"
        :initializationOptions (lambda (_server) (or revline-settings (make-hash-table)))))

(defun revline--server-entry-p (entry)
  "Non-nil when ENTRY of `eglot-server-programs' is revline's."
  (eq (cdr-safe entry) #'revline--contact))

;;;###autoload
(defun revline-eglot-setup ()
  "Register revline with eglot for `revline-major-modes'."
  (interactive)
  (setq eglot-server-programs (cl-remove-if #'revline--server-entry-p eglot-server-programs))
  (push (cons revline-major-modes #'revline--contact) eglot-server-programs))

(defun revline--server ()
  "The revline eglot server of the current buffer, or an error."
  (let ((server (eglot-current-server)))
    (unless server
      (user-error "revline: no eglot server for this buffer; run M-x eglot first (see revline-eglot-setup)"))
    server))

(defun revline--uri (path)
  "The file URI of PATH."
  (if (fboundp 'eglot-path-to-uri)
      (funcall 'eglot-path-to-uri path)
    (with-no-warnings (eglot--path-to-uri path))))

(defun revline--command (command arguments)
  "Run the server's COMMAND with ARGUMENTS (a vector) and report the result."
  (let ((result (jsonrpc-request (revline--server) :workspace/executeCommand
                                 (list :command command :arguments arguments))))
    (when (and (listp result) (plist-member result :findings))
      (let ((n (plist-get result :findings)))
        (message "revline: %d finding%s" n (if (eql n 1) "" "s"))))
    result))

;;;###autoload
(defun revline-review-file ()
  "Review the current file's changes now (saving it first if modified)."
  (interactive)
  (unless buffer-file-name (user-error "revline: this buffer visits no file"))
  (when (buffer-modified-p) (save-buffer))
  (revline--command "revline.reviewFile"
                    (vector (list :uri (revline--uri (expand-file-name buffer-file-name))))))

;;;###autoload
(defun revline-review-workspace ()
  "Review every change in the working tree of the current repository."
  (interactive)
  (let ((root (locate-dominating-file default-directory ".git")))
    (revline--command "revline.reviewWorkspace"
                      (if root
                          (vector (list :uri (revline--uri (directory-file-name (expand-file-name root)))))
                        []))))

;;;###autoload
(defun revline-clear ()
  "Clear revline's diagnostics."
  (interactive)
  (revline--command "revline.clearDiagnostics" []))

;;;###autoload
(defun revline-send-settings ()
  "Send `revline-settings' to the running server.
The server receives them as workspace/didChangeConfiguration."
  (interactive)
  (jsonrpc-notify (revline--server) :workspace/didChangeConfiguration
                  (list :settings (list :revline (or revline-settings (make-hash-table))))))

(provide 'revline)
;;; revline.el ends here
