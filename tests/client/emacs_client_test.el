;;; emacs_client_test.el --- batch test of editors/emacs/revline.el  -*- lexical-binding: t; -*-

;; Run from a directory holding a copy of revline.el (run-client-test.sh does):
;;   REVLINE_BINARY=/path/to/revline emacs --batch -Q -l tests/client/emacs_client_test.el
;;
;; 1. Byte-compiles revline.el with warnings as errors and loads it.
;; 2. If eglot is available: opens a Java file of a temporary git repository
;;    with eglot connected to the real `revline lsp', edits and saves it,
;;    waits for revline's diagnostics, applies the quick fix through eglot's
;;    workspace-edit code and checks the buffer; runs the revline commands.
;; Exits 0 on success, 1 with a message on failure.

;;; Code:

(load (expand-file-name "emacs_test_helpers.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(setq revline-test--name "emacs-client-test")
(defvar revline-test--diagnostics nil "publishDiagnostics params received, newest first.")

(defun revline-test--byte-compile ()
  (let ((byte-compile-error-on-warn t)
        (file (expand-file-name "revline.el")))
    (unless (byte-compile-file file)
      (revline-test--fail "byte-compiling %s failed" file))
    (load (concat (file-name-sans-extension file) ".elc") nil t)
    (revline-test--log "byte-compiled and loaded %s" file)
    (dolist (f '(revline-eglot-setup revline-review-file revline-review-workspace revline-clear
                 revline-cancel-reviews revline-send-settings))
      (unless (commandp f) (revline-test--fail "%s is not a command" f)))
    (revline-eglot-setup)
    (revline-eglot-setup) ; idempotent
    (unless (= 1 (cl-count-if #'revline--server-entry-p eglot-server-programs))
      (revline-test--fail "revline registered %d times in eglot-server-programs"
                          (cl-count-if #'revline--server-entry-p eglot-server-programs)))))

(defun revline-test--latest-for (uri)
  (cl-loop for p in revline-test--diagnostics
           when (equal (plist-get p :uri) uri) return (plist-get p :diagnostics)))

(defun revline-test--closed-port ()
  "A local TCP port nothing listens on (one just opened and closed)."
  (let* ((probe (make-network-process :name "revline-port-probe" :server t :host "127.0.0.1" :service t))
         (port (process-contact probe :service)))
    (delete-process probe)
    port))

(defun revline-test--failed-command-told-once (server uri)
  "Make `revline-review-file' fail on SERVER (no model server) and check it is told once.
The diagnostics published for URI stay as they were."
  (let* ((port (revline-test--closed-port))
         (before (revline-test--latest-for uri))
         (shown nil)
         (messages nil)
         (record-shown (lambda (_server method &rest params)
                         (when (eq method 'window/showMessage) (push params shown))))
         (record-message (lambda (fmt &rest args)
                           (when fmt (push (apply #'format-message fmt args) messages)))))
    (setq revline-settings (list :provider "ollama" :model "none"
                                 :base_url (format "http://127.0.0.1:%d" port)))
    (revline-send-settings)
    (advice-add 'eglot-handle-notification :before record-shown)
    (advice-add 'message :before record-message)
    (unwind-protect
        (progn
          (revline-review-file)
          (revline-test--wait "the failed review's message"
                              (lambda () (cl-some (lambda (m) (string-match-p "revline.reviewFile failed" m)) messages)))
          ;; The server writes in order: once this is answered, whatever it sent before has been handled.
          (jsonrpc-request server :revline/stats (make-hash-table)))
      (advice-remove 'message record-message)
      (advice-remove 'eglot-handle-notification record-shown))
    (when shown (revline-test--fail "window/showMessage beside the failed command: %S" shown))
    ;; The review's progress says what it waits for ("reviewing ...: could not connect; trying again"): not the failure.
    (let ((failures (cl-remove-if-not (lambda (m) (and (string-match-p "failed\\|could not connect" m)
                                                       (not (string-prefix-p "revline: reviewing " m))))
                                      messages)))
      (unless (= 1 (length failures))
        (revline-test--fail "one failed review told %d times: %S" (length failures) messages))
      (unless (string-match-p (regexp-quote (format "127.0.0.1:%d" port)) (car failures))
        (revline-test--fail "the message does not name the server: %S" (car failures)))
      (when (string-match-p ": revline: " (car failures))
        (revline-test--fail "the message names revline twice: %S" (car failures)))
      (revline-test--log "failed review told once: %s" (car (split-string (car failures) "\n"))))
    (unless (equal before (revline-test--latest-for uri))
      (revline-test--fail "the diagnostics changed after the failure: %S, then %S" before (revline-test--latest-for uri)))
    (setq revline-settings '(:provider "builtin"))
    (revline-send-settings)))

(defun revline-test--cancelled-review (server uri)
  "`revline-cancel-reviews' stops a review whose model never answers.
The \"model\" on 127.0.0.1 takes revline's request and says nothing; once the
command has run, revline gives the call up (closes the connection), the
review's command says it was cancelled, not that it failed, and URI's
diagnostics stay as they were."
  (let* ((before (revline-test--latest-for uri))
         (asked nil) (messages nil)
         (model (make-network-process
                 :name "revline-hung-model" :server t :host "127.0.0.1" :service t
                 :filter #'ignore ; the request is read and never answered
                 :log (lambda (_server connection _message) (push connection asked))))
         (record-message (lambda (fmt &rest args)
                           (when fmt (push (apply #'format-message fmt args) messages)))))
    (setq revline-settings (list :provider "ollama" :model "none"
                                 :base_url (format "http://127.0.0.1:%d" (process-contact model :service))))
    (revline-send-settings)
    (advice-add 'message :before record-message)
    (unwind-protect
        (progn
          (revline-review-file)
          (revline-test--wait "the review to ask the model" (lambda () asked))
          (unless (commandp 'revline-cancel-reviews) (revline-test--fail "revline-cancel-reviews is not a command"))
          (call-interactively #'revline-cancel-reviews)
          (revline-test--wait "revline-cancel-reviews to say what it cancelled"
                              (lambda () (member "revline: cancelled 1 review: src/Order.java" messages)))
          (revline-test--wait "the review's command to say it was cancelled"
                              (lambda () (member "revline: revline.reviewFile: cancelled" messages)))
          (revline-test--wait "revline to give up the model call"
                              (lambda () (cl-notany (lambda (c) (eq (process-status c) 'open)) asked)))
          (setq messages nil)
          (revline-cancel-reviews)
          (revline-test--wait "a second revline-cancel-reviews to find nothing running"
                              (lambda () (member "revline: no review is running" messages)))
          (jsonrpc-request server :revline/stats (make-hash-table)))
      (advice-remove 'message record-message)
      (delete-process model))
    (when (cl-some (lambda (m) (string-match-p "failed" m)) messages)
      (revline-test--fail "a cancelled review said it failed: %S" messages))
    (unless (equal before (revline-test--latest-for uri))
      (revline-test--fail "the diagnostics changed after the cancel: %S, then %S" before (revline-test--latest-for uri)))
    (revline-test--log "revline-cancel-reviews stopped the review")
    (setq revline-settings '(:provider "builtin"))
    (revline-send-settings)))

(defun revline-test--live ()
  (let* ((binary (getenv "REVLINE_BINARY"))
         (file (revline-test--make-repo "revline-emacs-"))
         (repo (file-name-directory (directory-file-name (file-name-directory file)))))
    (unless (and binary (file-executable-p binary))
      (revline-test--fail "set REVLINE_BINARY to the revline executable, got %S" binary))
    (unwind-protect
        (progn
          (setq revline-executable binary
                ;; blocking_severity BLOCKER: the verdict shows the settings were honoured
                ;; (eglot sends an empty didChangeConfiguration right after connecting).
                revline-settings '(:provider "builtin" :debounce_ms 0 :review_scope "file"
                                   :policy (:blocking_severity "BLOCKER")))
          (advice-add 'eglot-handle-notification :before
                      (lambda (_server method &rest params)
                        (when (eq method 'textDocument/publishDiagnostics)
                          (push params revline-test--diagnostics))))
          (find-file file)
          (unless (derived-mode-p 'java-mode) (java-mode))
          (let* ((guess (eglot--guess-contact))
                 (server (apply #'eglot guess))
                 (uri (revline--uri file)))
            (revline-test--wait "eglot to connect to revline" (lambda () (eglot-current-server)))
            (setq server (eglot-current-server))
            (revline-test--log "eglot connected: %s" (jsonrpc-name server))
            ;; Edit and save.
            (goto-char (point-min))
            (forward-line 2)
            (insert "    if (status == \"APPROVED\") {\n      return true;\n    }\n")
            (save-buffer)
            (revline-test--wait "revline diagnostics after saving"
                                (lambda () (> (length (revline-test--latest-for uri)) 0)))
            (let* ((diags (revline-test--latest-for uri))
                   (d (aref diags 0))
                   (range (plist-get d :range)))
              (unless (= (length diags) 1) (revline-test--fail "expected 1 diagnostic, got %S" diags))
              (unless (= 2 (plist-get (plist-get range :start) :line))
                (revline-test--fail "diagnostic line: %S" range))
              (unless (string-prefix-p "String compared with == / != instead of equals()" (plist-get d :message))
                (revline-test--fail "diagnostic message: %S" (plist-get d :message)))
              (unless (equal (plist-get d :code) "CORRECTNESS") (revline-test--fail "code: %S" (plist-get d :code)))
              (revline-test--log "diagnostic on line %d: %s" (1+ (plist-get (plist-get range :start) :line))
                                 (car (split-string (plist-get d :message) "\n")))
              ;; The review's end is said (eglot 1.9 takes no server progress: revline's class does;
              ;; from 1.10 eglot shows it itself).
              (unless (boundp 'eglot-report-progress)
                (revline-test--wait "the review's end in revline-last-progress"
                                    (lambda () (and (stringp revline-last-progress)
                                                    (string-match-p "1 finding, verdict" revline-last-progress))))
                (revline-test--log "progress: %s" revline-last-progress))
              ;; Flymake shows it.
              (revline-test--wait "the diagnostic in Flymake"
                                  (lambda ()
                                    (unless (flymake-diagnostics) (flymake-start))
                                    (cl-some (lambda (fd) (string-match-p "instead of equals" (flymake-diagnostic-text fd)))
                                             (flymake-diagnostics)))
                                  10)
              ;; revline-settings survive eglot's empty workspace/didChangeConfiguration.
              (let ((result (revline-test--command-result "revline-review-file" #'revline-review-file)))
                (unless (and (equal (plist-get result :findings) 1) (equal (plist-get result :verdict) "COMMENT"))
                  (revline-test--fail "revline-settings ignored: %S (expected 1 finding, verdict COMMENT)" result)))
              ;; A stale fix: get it, change the line, apply it: eglot refuses (version), the text stays.
              (let* ((actions (jsonrpc-request server :textDocument/codeAction
                                               (list :textDocument (list :uri uri) :range range
                                                     :context (list :diagnostics (vector d)))))
                     (stale (cl-find-if (lambda (a) (plist-get a :edit)) actions))
                     (changed "    if (status == \"APPROVED\" || status == \"OPEN\") {"))
                (unless (plist-get (plist-get stale :edit) :documentChanges)
                  (revline-test--fail "the fix is not a documentChanges edit: %S" stale))
                (goto-char (point-min))
                (forward-line 2)
                (delete-region (line-beginning-position) (line-end-position))
                (insert changed)
                (eglot--signal-textDocument/didChange)
                (unless (condition-case nil
                            (progn (eglot--apply-workspace-edit (plist-get stale :edit)) nil)
                          (error t))
                  (revline-test--fail "eglot applied a fix made for an older version"))
                (goto-char (point-min))
                (forward-line 2)
                (let ((line (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
                  (unless (equal line changed) (revline-test--fail "a stale fix changed line 3: %S" line)))
                (revline-test--log "stale fix refused by eglot")
                (delete-region (line-beginning-position) (line-end-position))
                (insert "    if (status == \"APPROVED\") {")
                (eglot--signal-textDocument/didChange))
              ;; The quick fix, applied through eglot.
              (let* ((actions (jsonrpc-request server :textDocument/codeAction
                                               (list :textDocument (list :uri uri) :range range
                                                     :context (list :diagnostics (vector d)))))
                     (fix (cl-find-if (lambda (a) (and (equal (plist-get a :kind) "quickfix") (plist-get a :edit)))
                                      actions)))
                (unless fix (revline-test--fail "no quick fix with an edit in %S" actions))
                (revline-test--log "applying: %s" (plist-get fix :title))
                (eglot--apply-workspace-edit (plist-get fix :edit))
                (goto-char (point-min))
                (forward-line 2)
                (let ((line (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
                  (unless (equal line "    if (\"APPROVED\".equals(status)) {")
                    (revline-test--fail "line 3 after the fix: %S" line))))
              ;; Eglot sends didChange from an idle timer, which never fires in batch mode.
              (eglot--signal-textDocument/didChange)
              (revline-test--wait "the applied fix to clear the diagnostic"
                                  (lambda () (= 0 (length (revline-test--latest-for uri)))))
              ;; The commands.
              (save-buffer)
              (let ((result (revline-test--command-result "revline-review-file" #'revline-review-file)))
                (unless (equal (plist-get result :findings) 0)
                  (revline-test--fail "revline-review-file on the fixed file: %S" result)))
              ;; A code action's command, as eglot runs it ("Review this file now"): revline's
              ;; server class runs it without blocking (eglot's own request gives up after 10 s).
              (unless (eq (eieio-object-class server) 'revline-eglot-server)
                (revline-test--fail "eglot runs revline as %S, not revline-eglot-server" (eieio-object-class server)))
              (let ((result (revline-test--command-result
                             "eglot's Review this file now"
                             (lambda () (eglot-execute-command server 'revline.reviewFile (vector (list :uri uri)))))))
                (unless (equal (plist-get result :findings) 0)
                  (revline-test--fail "eglot's Review this file now: %S" result)))
              (revline-clear)
              (let ((result (revline-test--command-result "revline-review-workspace" #'revline-review-workspace)))
                (unless (equal (plist-get result :findings) 0)
                  (revline-test--fail "revline-review-workspace: %S" result)))
              (revline-send-settings)
              ;; A review command that fails (the model's server is not running) is told once:
              ;; the command's own message, no window/showMessage beside it.
              (revline-test--failed-command-told-once server uri)
              ;; A review whose model never answers is stopped by revline-cancel-reviews.
              (revline-test--cancelled-review server uri))
            (eglot-shutdown server)
            (revline-test--log "eglot session passed")))
      (revline-test--cleanup repo))))

(condition-case err
    (progn
      (unless (require 'eglot nil t)
        (message "emacs-client-test skipped: eglot is not installed (Debian: elpa-eglot; built into Emacs 29+)")
        (kill-emacs 77))
      (revline-test--byte-compile)
      (revline-test--live)
      (revline-test--log "all checks passed"))
  (error
   (setq revline-test--failed t)
   (message "emacs-client-test: %s" (error-message-string err))))

(kill-emacs (if revline-test--failed 1 0))
;;; emacs_client_test.el ends here
