;;; emacs_alongside_test.el --- revline-mode beside the user's own eglot server  -*- lexical-binding: t; -*-

;; Run from a directory holding a copy of revline.el (run-client-test.sh does):
;;   REVLINE_BINARY=... REVLINE_STUB_SERVER=tests/client/stub_lsp_server.py \
;;     emacs --batch -Q -l tests/client/emacs_alongside_test.el
;;
;; A Java buffer whose eglot server is the user's own (a stub language
;; server); `revline-mode' with no settings beside it: eglot keeps its server,
;; Flymake shows both servers' diagnostics after a save, a stale fix is
;; refused, the current fix applies. Exits 0 on success, 1 on failure, 77
;; without eglot.

;;; Code:

(require 'cl-lib)
(require 'package)
(dolist (dir '("/usr/share/emacs/site-lisp/elpa"))
  (when (file-directory-p dir) (add-to-list 'package-directory-list dir)))
(package-initialize)

(defvar revline-test--failed nil)

(defun revline-test--log (fmt &rest args)
  (princ (concat "emacs-alongside-test: " (apply #'format fmt args) "\n")))

(defun revline-test--fail (fmt &rest args)
  (error "FAILED: %s" (apply #'format fmt args)))

(defun revline-test--wait (what predicate &optional seconds)
  (let ((deadline (+ (float-time) (or seconds 15))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (unless (funcall predicate)
      (revline-test--fail "timed out waiting for %s" what))))

(defun revline-test--git (dir &rest args)
  (let ((default-directory dir))
    (with-temp-buffer
      (unless (zerop (apply #'call-process "git" nil t nil args))
        (revline-test--fail "git %s: %s" (string-join args " ") (buffer-string))))))

(defun revline-test--line (n)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- n))
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun revline-test--set-line (n text)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- n))
    (delete-region (line-beginning-position) (line-end-position))
    (insert text)))

(defun revline-test--flymake-has (regexp)
  (flymake-start)
  (cl-some (lambda (d) (string-match-p regexp (flymake-diagnostic-text d))) (flymake-diagnostics)))

(defun revline-test--run ()
  (let* ((binary (getenv "REVLINE_BINARY"))
         (stub (getenv "REVLINE_STUB_SERVER"))
         (repo (file-name-as-directory (file-truename (make-temp-file "revline-alongside-" t))))
         (file (expand-file-name "src/Order.java" repo)))
    (unless (and binary (file-executable-p binary)) (revline-test--fail "REVLINE_BINARY: %S" binary))
    (unless (and stub (file-exists-p stub)) (revline-test--fail "REVLINE_STUB_SERVER: %S" stub))
    (unwind-protect
        (progn
          (make-directory (expand-file-name "src" repo) t)
          (revline-test--git repo "init" "-q")
          (revline-test--git repo "config" "user.email" "test@example.com")
          (revline-test--git repo "config" "user.name" "test")
          (revline-test--git repo "config" "commit.gpgsign" "false")
          (with-temp-file file
            (insert "class Order {\n  boolean approved(String status) {\n    return false;\n  }\n}\n"))
          (revline-test--git repo "add" ".")
          (revline-test--git repo "commit" "-q" "-m" "init")

          (load (expand-file-name "revline.el") nil t)
          ;; The user's own server for Java, and revline as documented: no settings.
          (push (cons 'java-mode (list "python3" stub)) eglot-server-programs)
          (setq revline-executable binary)
          (find-file file)
          (unless (derived-mode-p 'java-mode) (java-mode))
          (apply #'eglot (eglot--guess-contact))
          (revline-test--wait "eglot to connect to the stub server" (lambda () (eglot-current-server)))
          (let ((own (eglot-current-server)))
            (revline-mode 1)
            (unless revline-mode (revline-test--fail "revline-mode did not turn on"))
            (unless (eq (eglot-current-server) own) (revline-test--fail "revline replaced the buffer's eglot server"))
            (unless (member stub (process-command (jsonrpc--process own)))
              (revline-test--fail "the buffer's eglot server is %S" (process-command (jsonrpc--process own))))
            (revline-test--log "eglot server: %s; revline-mode on" (string-join (process-command (jsonrpc--process own)) " "))
            ;; Edit and save: revline's finding appears in Flymake next to the stub's.
            (goto-char (point-min))
            (forward-line 2)
            (insert "    if (status == \"APPROVED\") {\n      return true;\n    }\n")
            (save-buffer)
            (revline-test--wait "revline's diagnostic in Flymake"
                                (lambda () (revline-test--flymake-has "revline: String compared with ==")))
            (revline-test--wait "the stub server's diagnostic in Flymake"
                                (lambda () (revline-test--flymake-has "stub: the user's own server")))
            (unless (eq (eglot-current-server) own) (revline-test--fail "eglot's server changed after a save"))
            (revline-test--log "Flymake shows both servers' diagnostics")
            ;; A stale fix is refused; the text stays as the user wrote it.
            (goto-char (point-min))
            (forward-line 2)
            (let* ((fix (cl-find-if (lambda (a) (plist-get a :edit)) (revline--code-actions)))
                   (changed "    if (status == \"APPROVED\" || status == \"OPEN\") {"))
              (unless fix (revline-test--fail "no fix offered on line 3"))
              (revline-test--set-line 3 changed)
              (unless (condition-case nil (progn (revline-apply-workspace-edit (plist-get fix :edit)) nil)
                        (user-error t))
                (revline-test--fail "a fix made for an older version was applied"))
              (unless (equal (revline-test--line 3) changed)
                (revline-test--fail "a stale fix changed line 3: %S" (revline-test--line 3)))
              (revline-test--log "stale fix refused")
              (revline-test--set-line 3 "    if (status == \"APPROVED\") {"))
            ;; The current fix applies.
            (goto-char (point-min))
            (forward-line 2)
            (revline-apply-fix)
            (unless (equal (revline-test--line 3) "    if (\"APPROVED\".equals(status)) {")
              (revline-test--fail "line 3 after revline-apply-fix: %S" (revline-test--line 3)))
            (revline-test--wait "the applied fix to leave Flymake"
                                (lambda () (not (revline-test--flymake-has "revline: String compared"))))
            (revline-test--log "fix applied")
            (set-buffer-modified-p nil)
            (revline-shutdown-all)
            (eglot-shutdown own)))
      (dolist (b (buffer-list))
        (when (and (buffer-file-name b) (string-prefix-p repo (buffer-file-name b)))
          (with-current-buffer b (set-buffer-modified-p nil))
          (kill-buffer b)))
      (delete-directory repo t))))

(condition-case err
    (progn
      (unless (require 'eglot nil t)
        (message "emacs-alongside-test skipped: eglot is not installed")
        (kill-emacs 77))
      (revline-test--run)
      (revline-test--log "all checks passed"))
  (error
   (setq revline-test--failed t)
   (message "emacs-alongside-test: %s" (error-message-string err))))

(kill-emacs (if revline-test--failed 1 0))
;;; emacs_alongside_test.el ends here
