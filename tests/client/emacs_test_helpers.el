;;; emacs_test_helpers.el --- shared by the batch Emacs client tests  -*- lexical-binding: t; -*-

;; Loaded by emacs_client_test.el and emacs_alongside_test.el: package setup
;; (Debian's elpa-eglot), logging, failing, waiting on events, a temporary
;; git repository with the committed Order.java both tests start from.

;;; Code:

(require 'cl-lib)
(require 'package)
(require 'subr-x)
;; Debian's elpa-eglot (Emacs 28) lives in the system package directory, which -Q leaves out.
(dolist (dir '("/usr/share/emacs/site-lisp/elpa"))
  (when (file-directory-p dir) (add-to-list 'package-directory-list dir)))
(package-initialize)

(defvar revline-test--name "emacs-test" "The prefix of this test's log lines.")
(defvar revline-test--failed nil)

(defun revline-test--log (fmt &rest args)
  (princ (concat revline-test--name ": " (apply #'format fmt args) "\n")))

(defun revline-test--fail (fmt &rest args)
  (error "FAILED: %s" (apply #'format fmt args)))

(defun revline-test--wait (what predicate &optional seconds)
  "Process events until PREDICATE holds, or fail naming WHAT after SECONDS (30)."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (unless (funcall predicate)
      (revline-test--fail "timed out waiting for %s" what))))

(defun revline-test--command-result (what thunk)
  "Run THUNK (a revline command), which must return at once, then wait for its result."
  (let ((returned (funcall thunk)))
    (when returned (revline-test--fail "%s waited for the server: returned %S" what returned)))
  (revline-test--wait what (lambda () revline-last-result) 60)
  revline-last-result)

(defun revline-test--git (dir &rest args)
  (let ((default-directory dir))
    (with-temp-buffer
      (unless (zerop (apply #'call-process "git" nil t nil args))
        (revline-test--fail "git %s: %s" (string-join args " ") (buffer-string))))))

(defun revline-test--make-repo (prefix)
  "A temporary git repository (named with PREFIX) with src/Order.java committed.
Returns the file name of Order.java."
  (let* ((repo (file-name-as-directory (file-truename (make-temp-file prefix t))))
         (file (expand-file-name "src/Order.java" repo)))
    (make-directory (expand-file-name "src" repo) t)
    (revline-test--git repo "init" "-q")
    (revline-test--git repo "config" "user.email" "test@example.com")
    (revline-test--git repo "config" "user.name" "test")
    (revline-test--git repo "config" "commit.gpgsign" "false")
    (with-temp-file file
      (insert "class Order {\n  boolean approved(String status) {\n    return false;\n  }\n}\n"))
    (revline-test--git repo "add" ".")
    (revline-test--git repo "commit" "-q" "-m" "init")
    file))

(defun revline-test--cleanup (repo)
  "Kill the buffers of REPO's files and delete it."
  (dolist (b (buffer-list))
    (when (and (buffer-file-name b) (string-prefix-p repo (buffer-file-name b)))
      (with-current-buffer b (set-buffer-modified-p nil))
      (kill-buffer b)))
  (delete-directory repo t))

(provide 'emacs_test_helpers)
;;; emacs_test_helpers.el ends here
