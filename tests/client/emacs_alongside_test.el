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

(load (expand-file-name "emacs_test_helpers.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(setq revline-test--name "emacs-alongside-test")

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

(defun revline-test--finding-on (uri line)
  "Non-nil when the server's latest diagnostics for URI have their first on LINE (0-based)."
  (let ((d (gethash uri revline--diagnostics)))
    (and (> (length d) 0) (= line (plist-get (plist-get (plist-get (aref d 0) :range) :start) :line)))))

(defun revline-test--flymake-has (regexp)
  (flymake-start)
  (cl-some (lambda (d) (string-match-p regexp (flymake-diagnostic-text d))) (flymake-diagnostics)))

(defun revline-test--run ()
  (let* ((binary (getenv "REVLINE_BINARY"))
         (stub (getenv "REVLINE_STUB_SERVER"))
         (file (revline-test--make-repo "revline-alongside-"))
         (repo (file-name-directory (directory-file-name (file-name-directory file)))))
    (unless (and binary (file-executable-p binary)) (revline-test--fail "REVLINE_BINARY: %S" binary))
    (unless (and stub (file-exists-p stub)) (revline-test--fail "REVLINE_STUB_SERVER: %S" stub))
    (unwind-protect
        (progn
          (load (expand-file-name "revline.el") nil t)
          ;; On `prog-mode-hook', as the README shows: a buffer in no repository (a
          ;; temporary one, *scratch*) turns it off without a word in the echo area.
          (let ((said nil))
            (cl-letf (((symbol-function 'message) (lambda (&rest args) (push (apply #'format args) said))))
              (with-temp-buffer
                (add-hook 'prog-mode-hook #'revline-mode)
                (emacs-lisp-mode)
                (remove-hook 'prog-mode-hook #'revline-mode)
                (when revline-mode (revline-test--fail "revline-mode on in a buffer of no repository"))))
            (when (cl-some (lambda (m) (string-match-p "revline" m)) said)
              (revline-test--fail "a buffer of no repository said: %S" said)))
          (revline-test--log "a buffer in no repository: revline-mode off, nothing said")
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
            ;; The review's end is said in the echo area: what it found, the verdict.
            (revline-test--wait "the review's progress end"
                                (lambda () (and revline-last-progress (string-match-p "verdict" revline-last-progress))))
            (revline-test--log "progress: %s" revline-last-progress)
            ;; revline-cancel-reviews asks revline-mode's server, not the buffer's eglot server (the stub).
            (let ((said nil))
              (cl-letf (((symbol-function 'message)
                         (lambda (fmt &rest args) (when fmt (push (apply #'format-message fmt args) said)))))
                (revline-cancel-reviews)
                (revline-test--wait "revline-cancel-reviews to answer"
                                    (lambda () (member "revline: no review is running" said))))
              (when (cl-some (lambda (m) (string-match-p "failed" m)) said)
                (revline-test--fail "revline-cancel-reviews failed: %S" said)))
            (revline-test--log "revline-cancel-reviews: revline-mode's server answered")
            ;; Lines typed above the finding: the server moves it and publishes each time,
            ;; all within one Flymake check. Flymake shows it once, where it is now.
            (let ((uri (revline--uri buffer-file-name)))
              (dotimes (k 3)
                (save-excursion (goto-char (point-min)) (insert "// typed above\n"))
                (revline-test--wait (format "the finding moved down %d lines" (1+ k))
                                    (lambda () (revline-test--finding-on uri (+ 3 k))))))
            (let ((shown (cl-remove-if-not (lambda (d) (string-prefix-p "revline:" (flymake-diagnostic-text d)))
                                           (flymake-diagnostics))))
              (unless (= 1 (length shown))
                (revline-test--fail "Flymake shows %d revline diagnostics for 1 finding: %S" (length shown)
                                    (mapcar (lambda (d) (line-number-at-pos (flymake-diagnostic-beg d))) shown)))
              (unless (= 6 (line-number-at-pos (flymake-diagnostic-beg (car shown))))
                (revline-test--fail "the finding is shown on line %d, not 6" (line-number-at-pos (flymake-diagnostic-beg (car shown))))))
            (save-excursion (goto-char (point-min)) (dotimes (_ 3) (delete-region (point) (line-beginning-position 2))))
            (let ((uri (revline--uri buffer-file-name)))
              (revline-test--wait "the finding back on line 3"
                                  (lambda () (revline-test--finding-on uri 2))))
            (revline-test--log "typing above a finding moves it, shown once")
            ;; The same with the buffer narrowed above the finding: it is outside the
            ;; narrowing, and still replaced, not doubled.
            (let ((uri (revline--uri buffer-file-name)))
              (save-restriction
                (narrow-to-region (point-min) (save-excursion (goto-char (point-min)) (line-end-position 2)))
                (save-excursion (goto-char (point-min)) (insert "// typed above\n"))
                (revline-test--wait "the finding moved below the narrowing"
                                    (lambda () (revline-test--finding-on uri 3))))
              (let ((shown (cl-remove-if-not (lambda (d) (string-prefix-p "revline:" (flymake-diagnostic-text d)))
                                             (flymake-diagnostics))))
                (unless (= 1 (length shown))
                  (revline-test--fail "narrowed: Flymake shows %d revline diagnostics for 1 finding" (length shown))))
              (save-excursion (goto-char (point-min)) (delete-region (point) (line-beginning-position 2)))
              (revline-test--wait "the finding back on line 3 after the narrowed edit"
                                  (lambda () (revline-test--finding-on uri 2))))
            (revline-test--log "narrowed: still shown once")
            ;; Commands that announce a wider region before the change than after it
            ;; (upcase-region from a blank line, upcase-word, subst-char-in-region): the
            ;; server's copy stays the buffer's, so the finding stays on its line. (Before,
            ;; the server lost a line, showed the finding on another one and the fix
            ;; below edited that one.)
            (let ((uri (revline--uri buffer-file-name)))
              (save-excursion (goto-char (point-min)) (insert "\nsome words in lower case\n"))
              (revline-test--wait "the finding moved down 2 lines" (lambda () (revline-test--finding-on uri 4)))
              (upcase-region (point-min) (save-excursion (goto-char (point-min)) (line-end-position 2)))
              (save-excursion (goto-char (point-min)) (forward-line 1) (forward-word 1) (upcase-word 1))
              (subst-char-in-region (point-min) (save-excursion (goto-char (point-min)) (line-end-position 2)) ?O ?0)
              ;; insert-before-markers (the transpose commands), a case change that lengthens
              ;; the text (ß to Ss), one announcement reported character by character.
              (save-excursion (goto-char (point-min)) (forward-line 1) (forward-char 3) (transpose-chars 1)
                              (transpose-words 1) (transpose-lines 1))
              (save-excursion (goto-char (point-min)) (insert "// ßtraße\n")
                              (capitalize-region (point-min) (line-end-position 0))
                              (translate-region (point-min) (line-end-position 3) (make-translation-table '((?e . ?E)))))
              (save-excursion (goto-char (point-min)) (delete-region (point) (line-beginning-position 2)))
              (save-excursion (goto-char (point-min)) (insert "// typed above\n"))
              (revline-test--wait "the finding on line 6 after the case changes"
                                  (lambda () (revline-test--finding-on uri 5)))
              (save-excursion (goto-char (point-min)) (dotimes (_ 3) (delete-region (point) (line-beginning-position 2))))
              (revline-test--wait "the finding back on line 3 after the case changes"
                                  (lambda () (revline-test--finding-on uri 2))))
            (revline-test--log "case changes: the server's copy is the buffer's")
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
            ;; The file changes on disk (git stash) and the buffer is reverted, as
            ;; auto-revert, magit and vc do: no error, every mode keeps its change
            ;; hooks (eglot's too), and the finding of the stashed change goes.
            (revline-test--set-line 3 "    if (status == \"APPROVED\") {")
            (save-buffer)
            (revline-test--wait "the finding back after a save"
                                (lambda () (revline-test--flymake-has "revline: String compared with ==")))
            (revline-test--git repo "stash" "-q")
            (condition-case err (revert-buffer t t t)
              (error (revline-test--fail "revert-buffer signalled %S" err)))
            (dolist (hook '(revline--after-change eglot--after-change))
              (unless (memq hook after-change-functions)
                (revline-test--fail "%s left after-change-functions in the revert: %S" hook after-change-functions)))
            (revline-test--wait "the stashed change's finding to leave Flymake"
                                (lambda () (not (revline-test--flymake-has "revline: String compared"))))
            (revline-test--log "reverted to HEAD: no error, change hooks kept, the finding gone")
            ;; Saved under a new name (`write-file'): the buffer is that document now. Its
            ;; finding moves with a line typed above it, and the fix edits its own line.
            ;; (Before, edits went on to the old name, and the fix, made from the file on
            ;; disk, replaced the line typed above.)
            (write-file (expand-file-name "src/Renamed.java" repo))
            (let ((uri (revline--uri buffer-file-name)))
              (revline-test--set-line 3 "    if (status == \"APPROVED\") {")
              (save-buffer)
              (revline-test--wait "the finding in the renamed file" (lambda () (revline-test--finding-on uri 2)))
              (save-excursion (goto-char (point-min)) (forward-line 1) (insert "    // typed above\n"))
              (revline-test--wait "the renamed file's finding moved down" (lambda () (revline-test--finding-on uri 3)))
              (goto-char (point-min))
              (forward-line 3)
              (revline-apply-fix)
              (unless (and (equal (revline-test--line 2) "    // typed above")
                           (equal (revline-test--line 3) "  boolean approved(String status) {")
                           (equal (revline-test--line 4) "    if (\"APPROVED\".equals(status)) {"))
                (revline-test--fail "the fix in the renamed file: lines 2-4 read %S, %S, %S"
                                    (revline-test--line 2) (revline-test--line 3) (revline-test--line 4))))
            (revline-test--log "saved under a new name: the finding moves and the fix edits its line")
            (set-buffer-modified-p nil)
            (revline-shutdown-all)
            (eglot-shutdown own)))
      (revline-test--cleanup repo))))

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
