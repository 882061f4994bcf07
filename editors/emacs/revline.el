;;; revline.el --- AI code review on save through revline's language server  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The revline authors
;; SPDX-License-Identifier: MIT

;; Author: The revline authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (jsonrpc "1.0.9"))
;; Keywords: tools, languages, convenience
;; URL: https://github.com/revline/revline

;;; Commentary:

;; Every time you save a file inside a git repository, revline reviews the
;; working-tree diff and shows the findings as Flymake diagnostics on the
;; changed lines, with commands to apply a finding's fix or dismiss it.
;;
;; Two ways to run it:
;;
;; 1. `revline-mode' (recommended): a Flymake backend that talks to
;;    `revline lsp' itself (through Emacs's jsonrpc library), beside
;;    whatever language server eglot runs for the buffer.  Eglot keeps its
;;    own server (Java, Python, ...) in charge of the buffer; revline adds its
;;    review diagnostics to the same Flymake session.
;;
;;      (add-to-list 'load-path "/path/to/revline/editors/emacs")
;;      (require 'revline)
;;      (setq revline-settings '(:provider "builtin"))  ; .revline.json keys
;;      (add-hook 'prog-mode-hook #'revline-mode)
;;
;;    Commands: `revline-apply-fix' and `revline-dismiss' at a finding,
;;    `revline-undismiss', `revline-show-dismissed'.
;;
;; 2. revline as the buffer's eglot server (`revline-eglot-setup'), for
;;    users who run no other language server: eglot runs ONE server per
;;    buffer, so this replaces other eglot servers for `revline-major-modes'.
;;    M-x eglot-code-actions then offers "Apply revline fix".
;;
;; Eglot is needed only for the second way (Emacs 29+ has it built in; on
;; Emacs 28, Debian's elpa-eglot).
;;
;; Commands for both: `revline-review-file', `revline-review-workspace',
;; `revline-clear', `revline-cancel-reviews', `revline-send-settings'.

;;; Code:

(require 'jsonrpc)
(require 'cl-lib)
(require 'flymake)
(require 'subr-x)
(require 'url-util)
(require 'eieio)   ; `find-class', for the eglot server class
(require 'eglot nil t) ; only `revline-eglot-setup' needs it
(defvar eglot-server-programs)
(declare-function eglot-current-server "eglot")

(defgroup revline nil
  "AI code review of the git working-tree diff, through `revline lsp'."
  :group 'tools
  :prefix "revline-")

(defcustom revline-executable "revline"
  "The revline executable: a command name in `exec-path' or an absolute path."
  :type 'string)

(defcustom revline-major-modes '(prog-mode text-mode conf-mode)
  "Major modes that `revline-eglot-setup' gives to revline as their eglot server.
Eglot runs one server per buffer: these modes lose any other eglot server.
`revline-mode' does not use this list and leaves eglot alone."
  :type '(repeat symbol))

(defcustom revline-settings nil
  "Settings sent to the server, as a plist of `.revline.json' keys.
For example: (:provider \"openai\" :model \"gpt-4o-mini\"
:api_key_env \"OPENAI_API_KEY\" :review_scope \"file\"
:policy (:blocking_severity \"MAJOR\")).  Arrays are vectors:
(:exclude [\"vendor/**\"]).  They override `.revline.json'."
  :type 'plist)

(defcustom revline-command-timeout 600
  "Seconds to wait for the answer to a server command, such as a review.
A review takes as long as the model: Emacs is not blocked meanwhile."
  :type 'integer)

(defvar revline-last-result nil
  "The result of the last server command, once it came.
For a review: a plist with :findings and :verdict.")

;; Eglot runs a code action's command with a blocking request that gives up
;; after 10 s: a review by a model takes longer. revline's own server class
;; runs them without waiting, like `revline--command'. It is defined once
;; eglot is loaded, whenever that is (before or after this file); quoted, so
;; this file compiles the same with or without eglot.
(defun revline--define-eglot-server ()
  "Define `revline-eglot-server' if eglot is loaded and it is not defined yet."
  (when (and (featurep 'eglot) (not (find-class 'revline-eglot-server nil)))
    (eval '(progn
             (defclass revline-eglot-server (eglot-lsp-server) ()
               :documentation "The revline language server under eglot: its commands do not block Emacs.")
             (cl-defmethod eglot-execute-command ((server revline-eglot-server) command arguments)
               (revline--command (format "%s" command) arguments server))
             (when (cl-generic-p 'eglot-execute) ; eglot 1.14+: code actions and commands go through it
               (cl-defmethod eglot-execute ((server revline-eglot-server) action)
                 (if (and (stringp (plist-get action :command)) (not (plist-get action :edit)))
                     (revline--command (plist-get action :command) (plist-get action :arguments) server)
                   (cl-call-next-method))))
             ;; Eglot before 1.10 (Debian 12's 1.9) takes no server progress: a review
             ;; showed nothing of how it went, what it found or what it spent.
             ;; revline says it as `revline-mode' does (`revline-show-progress').
             (unless (boundp 'eglot-report-progress)
               (cl-defmethod eglot-client-capabilities ((_server revline-eglot-server))
                 (append (cl-call-next-method) (list :window (list :workDoneProgress t))))
               (cl-defmethod eglot-handle-request
                 ((_server revline-eglot-server) (_method (eql window/workDoneProgress/create)) &rest _params)
                 nil)
               (cl-defmethod eglot-handle-notification
                 ((_server revline-eglot-server) (_method (eql $/progress)) &key value &allow-other-keys)
                 (revline--progress value))))
          t)))

(with-eval-after-load 'eglot (revline--define-eglot-server))

(defun revline--contact (&optional _interactive)
  "The eglot contact for revline: server class, command, initializationOptions."
  (revline--define-eglot-server)
  (let ((contact (list revline-executable "lsp"
                       :initializationOptions (lambda (_server) (or revline-settings (make-hash-table))))))
    (if (find-class 'revline-eglot-server nil) (cons 'revline-eglot-server contact) contact)))

(defun revline--server-entry-p (entry)
  "Non-nil when ENTRY of `eglot-server-programs' is revline's."
  (eq (cdr-safe entry) #'revline--contact))

;;;###autoload
(defun revline-eglot-setup ()
  "Register revline as the eglot server of `revline-major-modes'.
This replaces other eglot servers for those modes; to keep them, use
`revline-mode' instead."
  (interactive)
  (unless (featurep 'eglot) (user-error "revline: eglot is not installed; use `revline-mode'"))
  (setq eglot-server-programs (cl-remove-if #'revline--server-entry-p eglot-server-programs))
  (push (cons revline-major-modes #'revline--contact) eglot-server-programs))

(defvar-local revline--connection nil "The `revline lsp' connection of this buffer (`revline-mode').")

(defun revline--server ()
  "The revline connection of the current buffer: `revline-mode's, else eglot's."
  (or (and revline--connection (jsonrpc-running-p revline--connection) revline--connection)
      (let ((server (and (fboundp 'eglot-current-server) (eglot-current-server))))
        (unless server
          (user-error "revline: no revline server for this buffer; enable `revline-mode'"))
        server)))

(defun revline--uri (path)
  "The file URI of PATH (percent-encoded, as `revline lsp' and eglot write it)."
  (concat "file://" (url-hexify-string (file-truename path) url-path-allowed-chars)))

(defun revline--report-result (result)
  "Keep RESULT in `revline-last-result' and say a review's findings count."
  (setq revline-last-result result)
  (when (and (listp result) (plist-member result :findings))
    (let ((n (plist-get result :findings)))
      (message "revline: %d finding%s" n (if (eql n 1) "" "s")))))

(defvar revline--failure-told nil
  "The last failure a command's error told, until its review's progress ends.")

(defun revline--command (command arguments &optional server)
  "Ask SERVER (default: the buffer's) to run COMMAND with ARGUMENTS (a vector).
Returns at once: a review takes as long as the model, so the result is
reported in the echo area, and kept in `revline-last-result', when it comes."
  (setq revline-last-result nil)
  (jsonrpc-async-request (or server (revline--server)) :workspace/executeCommand
                         (list :command command :arguments arguments)
                         :success-fn #'revline--report-result
                         :error-fn (lambda (err)
                                     (pcase (and (listp err) (plist-get err :code))
                                       ;; ServerCancelled: `revline-cancel-reviews' stopped it (its data
                                       ;; says so), or a newer review of the file took its place.
                                       ;; (JSON false reads as :json-false, which is not nil.)
                                       (-32802 (if (eq (plist-get (plist-get err :data) :cancelledFromEditor) t)
                                                   (message "revline: %s: cancelled" command)
                                                 (message "revline: %s: superseded by a newer review" command)))
                                       (_ (let ((said (or (and (listp err) (plist-get err :message)) err)))
                                            (setq revline--failure-told (format "%s" said))
                                            (message "revline: %s failed: %s" command said)))))
                         :timeout revline-command-timeout
                         :timeout-fn (lambda ()
                                       (message "revline: %s: no answer in %d s" command revline-command-timeout)))
  nil)

;;;###autoload
(defun revline-review-file ()
  "Review the current file's changes now (saving it first if modified)."
  (interactive)
  (unless buffer-file-name (user-error "revline: this buffer visits no file"))
  (when (buffer-modified-p) (save-buffer))
  (message "revline: reviewing %s..." (file-name-nondirectory buffer-file-name))
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

(defvar revline--connections)  ; below, with `revline-mode'

;;;###autoload
(defun revline-cancel-reviews ()
  "Cancel every running review: the model call in flight is given up.
Every `revline-mode' server's reviews (or, without one, the buffer's eglot
server's), running or waiting for their turn.  The diagnostics shown stay;
the next save reviews as usual.  Emacs shows no cancel button for a server's
progress: this is it."
  (interactive)
  (let* ((servers (or (cl-remove-if-not #'jsonrpc-running-p
                                        (hash-table-values revline--connections))
                      (list (revline--server))))
         (waiting (length servers))
         (names nil)
         ;; Once every server has answered (or failed, or timed out): one summary.
         (answered (lambda ()
                     (when (zerop (cl-decf waiting))
                       (message (if names
                                    (format "revline: cancelled %d review%s: %s" (length names)
                                            (if (eql (length names) 1) "" "s") (string-join names ", "))
                                  "revline: no review is running"))))))
    (dolist (server servers)
      (jsonrpc-async-request
       server :workspace/executeCommand (list :command "revline.cancelReviews" :arguments [])
       :success-fn (lambda (result)
                     (setq names (append names (append (plist-get result :reviews) nil)))
                     (funcall answered))
       :error-fn (lambda (err)
                   (message "revline: revline.cancelReviews failed: %s"
                            (or (and (listp err) (plist-get err :message)) err))
                   (funcall answered))
       :timeout revline-command-timeout
       :timeout-fn (lambda ()
                     (message "revline: revline.cancelReviews: no answer in %d s" revline-command-timeout)
                     (funcall answered))))
    nil))

;;;###autoload
(defun revline-send-settings ()
  "Send `revline-settings' to the running server.
The server receives them as workspace/didChangeConfiguration."
  (interactive)
  (jsonrpc-notify (revline--server) :workspace/didChangeConfiguration
                  (list :settings (list :revline (or revline-settings (make-hash-table))))))


;;;; revline-mode: a Flymake backend beside the buffer's own language server

(defvar revline-mode)

(defvar revline--connections (make-hash-table :test #'equal)
  "Running `revline lsp' connections, by repository root.")
(defvar revline--diagnostics (make-hash-table :test #'equal)
  "The latest LSP diagnostics (a vector) published by revline, by URI.")

(defvar-local revline--version 0 "The LSP version of this buffer's text.")
(defvar-local revline--document nil
  "The URI the server has open for this buffer (didOpen sent, no didClose), or nil.
Change notifications name it: `buffer-file-name' is nil during a revert.")
(defvar-local revline--report-fn nil "Flymake's report function for `revline-flymake-backend'.")
(defvar-local revline--change nil
  "The region a change announced (before-change) and not yet all sent, or nil.
A plist: :start and :end-lsp, its LSP range in the server's copy; :beg, its
buffer start (text before a change does not move); :old-end, its buffer end
when announced; :end, its buffer end now; :depth, the announcements inside it
not yet followed by their after-change, itself included.")

(defun revline--root ()
  "The git repository root of the current buffer's file, or nil."
  (when-let ((dir (and buffer-file-name (locate-dominating-file buffer-file-name ".git"))))
    (directory-file-name (file-truename dir))))

(defun revline--utf16-column (pos)
  "The UTF-16 column of POS on its line (LSP positions count UTF-16 code units)."
  (save-excursion
    (save-restriction
      (widen)  ; a narrowing that starts mid-line would cut the line's start off
      (goto-char pos)
      (let ((text (buffer-substring-no-properties (line-beginning-position) pos)))
        (/ (length (encode-coding-string text 'utf-16le t)) 2)))))

(defun revline--lsp-position (pos)
  "The LSP position of POS (in the whole buffer, whatever the narrowing)."
  (save-restriction
    (widen)
    (list :line (1- (line-number-at-pos pos t)) :character (revline--utf16-column pos))))

(defun revline--point (position)
  "The buffer position of the LSP POSITION (clamped into the buffer)."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (if (> (forward-line (plist-get position :line)) 0)
          (point-max)
        (let ((units (plist-get position :character)))
          (while (and (> units 0) (not (eolp)))
            (setq units (- units (if (> (char-after) #xFFFF) 2 1)))
            (forward-char 1))
          (point))))))

(defun revline--buffer-for-uri (uri)
  "The live `revline-mode' buffer whose file has URI, or nil."
  (cl-find-if (lambda (b) (with-current-buffer b
                            (and revline-mode buffer-file-name (equal (revline--uri buffer-file-name) uri))))
              (buffer-list)))

(defun revline--flymake-diagnostics (diagnostics)
  "Flymake diagnostics of the current buffer for the LSP DIAGNOSTICS."
  (cl-loop for d across diagnostics
           for range = (plist-get d :range)
           for beg = (revline--point (plist-get range :start))
           for end = (revline--point (plist-get range :end))
           collect (flymake-make-diagnostic
                    (current-buffer) beg (if (> end beg) end (min (point-max) (1+ beg)))
                    (pcase (plist-get d :severity) (1 :error) (2 :warning) (_ :note))
                    (concat "revline: " (plist-get d :message)))))

(defun revline--report ()
  "Give Flymake the current buffer's revline diagnostics."
  (when revline--report-fn
    ;; :region replaces what was reported before: without it, Flymake adds a
    ;; later report of the same check on top of the earlier one (stale and
    ;; doubled diagnostics), as eglot also notes.
    ;; The whole buffer, narrowed or not: diagnostics outside a narrowing are replaced too.
    (funcall revline--report-fn
             (revline--flymake-diagnostics
              (if buffer-file-name (gethash (revline--uri buffer-file-name) revline--diagnostics []) []))
             :region (save-restriction (widen) (cons (point-min) (point-max))))))

(defun revline-flymake-backend (report-fn &rest _)
  "Flymake backend: revline's review findings for this buffer (via REPORT-FN).
Reviews happen on save; this reports the latest ones."
  (setq revline--report-fn report-fn)
  (revline--report))

(defun revline--handle-notification (_connection method params)
  "Handle a notification METHOD with PARAMS from `revline lsp'."
  (pcase method
    ('textDocument/publishDiagnostics
     (let ((uri (plist-get params :uri)))
       (puthash uri (plist-get params :diagnostics) revline--diagnostics)
       (when-let ((buffer (revline--buffer-for-uri uri)))
         (with-current-buffer buffer (revline--report)))))
    ('window/showMessage (message "%s" (plist-get params :message)))
    ('$/progress (revline--progress (plist-get params :value)))
    (_ nil)))

(defcustom revline-show-progress t
  "Non-nil: say in the echo area how a review is going.
At its end: what it found, the verdict, and what it spent."
  :type 'boolean)

(defvar revline-last-progress nil
  "The last progress text of a review (the end says findings, verdict and spend).")

(defun revline--progress (value)
  "Show the `$/progress' VALUE of a review (begin, report or end).
The end of a failed review whose command's error told the failure (the
server answers the command before it ends the progress) is kept, not shown:
the failure is told once."
  (let* ((text (or (plist-get value :message) (plist-get value :title)))
         ;; "failed: REASON; spent ...": told when the command's error began with REASON.
         (reason (and (stringp text) (equal (plist-get value :kind) "end") (string-prefix-p "failed: " text)
                      (substring text (length "failed: "))))
         (told (and reason revline--failure-told
                    (string-prefix-p (substring reason 0 (min (length reason) 40)) revline--failure-told))))
    (when (equal (plist-get value :kind) "end") (setq revline--failure-told nil))
    (when (stringp text)
      (setq revline-last-progress text)
      (when (and revline-show-progress (not told))
        (let ((message-log-max (and (equal (plist-get value :kind) "end") message-log-max)))
          (message "revline: %s" text))))))

(defun revline--handle-request (_connection _method _params)
  "Answer a request from `revline lsp' (none needs anything from Emacs).
window/workDoneProgress/create is answered null: the progress then comes as
`$/progress' notifications."
  nil)

(defun revline--connect (root)
  "The running connection for ROOT, started (and initialized) if needed."
  (let ((conn (gethash root revline--connections)))
    (unless (and conn (jsonrpc-running-p conn))
      (let* ((default-directory (file-name-as-directory root))
             (process (make-process :name (format "revline lsp (%s)" root)
                                    :command (list revline-executable "lsp")
                                    :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
                                    :stderr (get-buffer-create " *revline stderr*"))))
        (setq conn (make-instance 'jsonrpc-process-connection
                                  :name (format "revline (%s)" (file-name-nondirectory root))
                                  :process process
                                  :notification-dispatcher #'revline--handle-notification
                                  :request-dispatcher #'revline--handle-request))
        (jsonrpc-request conn :initialize
                         (list :processId (emacs-pid) :rootUri (revline--uri root)
                               :capabilities (list :workspace (list :workspaceEdit (list :documentChanges t))
                                                   :window (list :workDoneProgress t))
                               :initializationOptions (or revline-settings (make-hash-table))))
        (jsonrpc-notify conn :initialized (make-hash-table))
        (puthash root conn revline--connections)))
    conn))

;; Change hooks must never signal: Emacs then empties `after-change-functions'
;; (or `before-change-functions') of the buffer, every mode's hooks with ours.
(defun revline--before-change (beg end)
  "Remember the region BEG..END that is about to change.
An announcement inside a region whose change is under way is part of it
\(`replace-match' with case conversion announces its match, then a part)."
  (with-demoted-errors "revline: %S"
    (let ((change revline--change))
      (if (and change (> (plist-get change :depth) 0)
               (<= (plist-get change :beg) beg) (<= end (plist-get change :end)))
          (plist-put change :depth (1+ (plist-get change :depth)))
        (setq revline--change (list :start (revline--lsp-position beg) :end-lsp (revline--lsp-position end)
                                    :beg beg :old-end end :end end :depth 1))))))

(defun revline--after-change (beg end old-length)
  "Send the change of BEG..END (OLD-LENGTH before) as its region's new text.
The region is the one before-change announced: `upcase-word',
`capitalize-region', `subst-char-in-region' and others announce a wider one
than they report after, and sending BEG..END in place of the announced range
lost the difference (a finding then showed on another line, and its fix
edited that one). Its end is found by counting, not by a marker:
`insert-before-markers' (the transpose commands) and case changes that
lengthen text (ß to SS) move markers otherwise. The last after-change of a
nested change sums it up, counted from the outermost announcement; one after
that, unannounced, is a further change of the region. A change
outside the announced region, or not announced, sends the whole text, as eglot
does (the server finds the lines that differ)."
  (with-demoted-errors "revline: %S"
    (when (and revline--document revline--connection (jsonrpc-running-p revline--connection))
      (let* ((change revline--change)
             (depth (and change (plist-get change :depth)))
             (outer (eql depth 1))
             (region-end (and change (plist-get change (if outer :old-end :end)))))
        (if (not (and change (<= (plist-get change :beg) beg) (<= (+ beg old-length) region-end)))
            (progn
              (revline--send-change (list :text (save-restriction
                                                  (widen)
                                                  (buffer-substring-no-properties (point-min) (point-max)))))
              (setq revline--change nil))
          (let ((new-end (min (+ region-end (- end beg old-length)) (save-restriction (widen) (point-max)))))
            (revline--send-change (list :range (list :start (plist-get change :start) :end (plist-get change :end-lsp))
                                        :text (save-restriction
                                                (widen)
                                                (buffer-substring-no-properties (plist-get change :beg) new-end))))
            ;; The server's copy of the region is this text now: what follows replaces it there.
            (plist-put change :end new-end)
            (plist-put change :end-lsp (revline--lsp-position new-end))
            ;; Kept at depth 0: `translate-region' announces once and reports each character.
            (plist-put change :depth (max 0 (1- depth)))))))))

(defun revline--send-change (event)
  "Send one didChange EVENT (a contentChanges entry) for this buffer."
  (cl-incf revline--version)
  (jsonrpc-notify revline--connection :textDocument/didChange
                  (list :textDocument (list :uri revline--document :version revline--version)
                        :contentChanges (vector event))))

(defun revline--did-open ()
  "Give revline the buffer's text.
The server shows the last review of the file's diff, or clears it."
  (when (and buffer-file-name (not revline--document) revline--connection
             (jsonrpc-running-p revline--connection))
    (setq revline--document (revline--uri buffer-file-name))
    (jsonrpc-notify revline--connection :textDocument/didOpen
                    (list :textDocument (list :uri revline--document :languageId "text"
                                              :version (cl-incf revline--version)
                                              :text (save-restriction (widen) (buffer-substring-no-properties
                                                                               (point-min) (point-max))))))))

(defun revline--did-save ()
  "Tell revline the file was saved: it reviews the diff."
  (when (and buffer-file-name revline--connection (jsonrpc-running-p revline--connection))
    ;; Saved under a new name (`write-file'): the buffer is that document now,
    ;; or its edits would go on to the old one and a fix for the new one be
    ;; made from the file on disk.
    (unless (equal revline--document (revline--uri buffer-file-name))
      (revline--did-close)
      (revline--did-open))
    (jsonrpc-notify revline--connection :textDocument/didSave
                    (list :textDocument (list :uri (revline--uri buffer-file-name))))))

(defun revline--did-close ()
  "Tell revline the buffer is gone (or about to be reread from disk)."
  (when (and revline--document revline--connection (jsonrpc-running-p revline--connection))
    (jsonrpc-notify revline--connection :textDocument/didClose
                    (list :textDocument (list :uri revline--document))))
  (setq revline--document nil))

(defvar revert-buffer-preserve-modes)

(defun revline--after-revert ()
  "Open the buffer again after it was reread from disk (auto-revert, magit, vc).
Its changes were not sent (the document was closed): the whole text is."
  (when revert-buffer-preserve-modes (revline--did-open)))

;;;###autoload
(define-minor-mode revline-mode
  "Show revline's review of the git diff as Flymake diagnostics, on every save.
It runs `revline lsp' beside the buffer's own eglot server, if any."
  :lighter " revline"
  (cond
   ((not revline-mode)
    (revline--did-close)
    (remove-hook 'flymake-diagnostic-functions #'revline-flymake-backend t)
    (remove-hook 'before-change-functions #'revline--before-change t)
    (remove-hook 'after-change-functions #'revline--after-change t)
    (remove-hook 'after-save-hook #'revline--did-save t)
    (remove-hook 'kill-buffer-hook #'revline--did-close t)
    (remove-hook 'change-major-mode-hook #'revline--did-close t)
    (remove-hook 'before-revert-hook #'revline--did-close t)
    (remove-hook 'after-revert-hook #'revline--after-revert t)
    (setq revline--connection nil))
   ((not (and buffer-file-name (revline--root)))
    (setq revline-mode nil)
    ;; Said to a user who asked (M-x revline-mode), not from `prog-mode-hook' in
    ;; every scratch, non-git or temporary buffer (org's source blocks fontify in one).
    (when (called-interactively-p 'interactive)
      (message "revline: %s is not inside a git repository" (or buffer-file-name (buffer-name)))))
   (t
    (setq revline--connection (revline--connect (revline--root))
          revline--version 0
          revline--document nil)
    (revline--did-open)
    (add-hook 'flymake-diagnostic-functions #'revline-flymake-backend nil t)
    (add-hook 'before-change-functions #'revline--before-change nil t)
    (add-hook 'after-change-functions #'revline--after-change nil t)
    (add-hook 'after-save-hook #'revline--did-save nil t)
    (add-hook 'kill-buffer-hook #'revline--did-close nil t)
    ;; A new major mode kills this mode's buffer-local state: the server closes the document first.
    (add-hook 'change-major-mode-hook #'revline--did-close nil t)
    ;; As eglot does: closed while the text is reread, opened again after.
    (add-hook 'before-revert-hook #'revline--did-close nil t)
    (add-hook 'after-revert-hook #'revline--after-revert nil t)
    (flymake-mode 1))))

(defun revline--diagnostics-at-point ()
  "revline's LSP diagnostics on the current line."
  (let ((line (1- (line-number-at-pos nil t))))
    (cl-remove-if-not
     (lambda (d) (let ((range (plist-get d :range)))
                   (<= (plist-get (plist-get range :start) :line) line
                       (plist-get (plist-get range :end) :line))))
     (append (gethash (revline--uri buffer-file-name) revline--diagnostics []) nil))))

(defun revline--code-actions ()
  "The server's code actions for revline's findings on the current line."
  (let ((diags (revline--diagnostics-at-point))
        (line (1- (line-number-at-pos nil t))))
    (unless diags (user-error "revline: no revline finding on this line"))
    (append (jsonrpc-request (revline--server) :textDocument/codeAction
                             (list :textDocument (list :uri (revline--uri buffer-file-name))
                                   :range (list :start (list :line line :character 0)
                                                :end (list :line line :character 0))
                                   :context (list :diagnostics (vconcat diags))))
            nil)))

(defun revline--choose (actions what)
  "One of ACTIONS (asking when there are several), or a `user-error' naming WHAT."
  (cond ((null actions) (user-error "revline: no %s on this line" what))
        ((null (cdr actions)) (car actions))
        (t (let ((title (completing-read "revline: " (mapcar (lambda (a) (plist-get a :title)) actions) nil t)))
             (cl-find title actions :key (lambda (a) (plist-get a :title)) :test #'equal)))))

(defun revline-apply-workspace-edit (edit)
  "Apply the WorkspaceEdit EDIT (documentChanges) to the buffers it names.
A document edit for another version than the buffer's is refused: the text
changed since the fix was computed."
  (dolist (change (append (plist-get edit :documentChanges) nil))
    (let* ((doc (plist-get change :textDocument))
           (buffer (revline--buffer-for-uri (plist-get doc :uri)))
           (version (plist-get doc :version)))
      (unless buffer (user-error "revline: %s is not open in `revline-mode'" (plist-get doc :uri)))
      (with-current-buffer buffer
        (when (and version (/= version revline--version))
          (user-error "revline: the fix was made for version %d of the buffer, which is now at %d; save to review again"
                      version revline--version))
        ;; No version: the server made it from the file on disk, which unsaved edits no longer match.
        (when (and (null version) (buffer-modified-p))
          (user-error "revline: the fix was made from the file on disk, and the buffer has unsaved changes; save to review again"))
        (save-excursion
          ;; Last edit first, so earlier positions stay valid.
          (dolist (e (reverse (append (plist-get change :edits) nil)))
            (let ((beg (revline--point (plist-get (plist-get e :range) :start)))
                  (end (revline--point (plist-get (plist-get e :range) :end))))
              (goto-char beg)
              (delete-region beg end)
              (insert (plist-get e :newText)))))))))

(defun revline-apply-fix ()
  "Apply the fix of the revline finding on the current line."
  (interactive)
  (let ((fix (revline--choose (cl-remove-if-not (lambda (a) (plist-get a :edit)) (revline--code-actions)) "revline fix")))
    (revline-apply-workspace-edit (plist-get fix :edit))
    (message "revline: applied %s" (plist-get fix :title))))

(defun revline--run-action-command (action)
  "Run the server command of ACTION."
  (let ((command (plist-get action :command)))
    (revline--command (plist-get command :command) (plist-get command :arguments))))

(defun revline-dismiss ()
  "Dismiss the revline finding on the current line (undo with `revline-undismiss')."
  (interactive)
  (revline--run-action-command
   (revline--choose (cl-remove-if-not (lambda (a) (equal (plist-get a :title) "Dismiss this finding"))
                                      (revline--code-actions))
                    "finding to dismiss")))

(defun revline-undismiss ()
  "Restore every dismissed revline finding of this file."
  (interactive)
  (revline--command "revline.undismiss" (vector (list :uri (revline--uri buffer-file-name)))))

(defun revline-show-dismissed ()
  "List the dismissed revline findings of this file."
  (interactive)
  (revline--command "revline.showDismissed" (vector (list :uri (revline--uri buffer-file-name)))))

(defun revline-shutdown-all ()
  "Stop every `revline lsp' started by `revline-mode'."
  (interactive)
  (maphash (lambda (_root conn)
             (when (jsonrpc-running-p conn)
               (ignore-errors (jsonrpc-request conn :shutdown nil))
               (ignore-errors (jsonrpc-notify conn :exit nil))))
           revline--connections)
  (clrhash revline--connections))

(provide 'revline)
;;; revline.el ends here
