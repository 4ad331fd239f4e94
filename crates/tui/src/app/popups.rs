//! Keys the popups pass up: the questions (unsaved edits, a conflict
//! with a changed file, consent, recovery, ...), whose answers are the
//! workbench's to carry out: they touch the document, the files and the
//! sends.

use super::*;

impl App {
    pub(super) fn on_popup_key(&mut self, popup: Popup, key: KeyEvent) -> Vec<Command> {
        let code = key.code;
        match popup {
            // They take their keys themselves (`Component::handle`) and
            // never pass one here.
            p @ (Popup::Settings(_)
            | Popup::Help(_)
            | Popup::Formatter { .. }
            | Popup::SendTo { .. }
            | Popup::History(_)
            | Popup::Picker(_)) => {
                self.popup = Some(p);
                Vec::new()
            }
            Popup::Conflict { disk, error } => self.on_conflict_key(code, disk, error),
            Popup::SaveAsk {
                question,
                allow,
                then,
            } => self.on_save_ask_key(code, question, allow, then),
            Popup::Recreate => match code {
                KeyCode::Char('y') => {
                    if let Some(doc) = self.doc.as_mut() {
                        doc.disk = Disk::Missing { recreate_ok: true };
                    }
                    self.save(AfterSave::Stay)
                }
                KeyCode::Esc | KeyCode::Char('n') => {
                    self.status = "not saved: the file stays deleted; your edits are kept".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Recreate);
                    Vec::new()
                }
            },
            Popup::Unsaved(pending) => {
                let then = match pending {
                    Pending::Quit => AfterSave::Quit,
                    Pending::Open(i) => AfterSave::Open(i),
                };
                match code {
                    KeyCode::Char('s') => self.save(then),
                    KeyCode::Char('d') => {
                        let mut cmds = self.drop_edits();
                        cmds.extend(self.after(then));
                        cmds
                    }
                    KeyCode::Esc => Vec::new(),
                    _ => {
                        self.popup = Some(Popup::Unsaved(pending));
                        Vec::new()
                    }
                }
            }
            Popup::Draft => match code {
                KeyCode::Char('e') | KeyCode::Esc => {
                    self.focus = Focus::Editor;
                    Vec::new()
                }
                KeyCode::Char('d') => {
                    self.load_editor();
                    self.status = "dropped the editor's text; the message is as it was".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Draft);
                    Vec::new()
                }
            },
            Popup::Recovery {
                recovery,
                disk_changed,
            } => match code {
                KeyCode::Char('r') => self.restore(*recovery),
                KeyCode::Char('d') => {
                    self.status = "dropped the recovered edits".into();
                    vec![Command::RemoveRecovery(recovery.session)]
                }
                KeyCode::Esc => {
                    self.status = "the recovery file stays: it is offered again next time".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Recovery {
                        recovery,
                        disk_changed,
                    });
                    Vec::new()
                }
            },
            Popup::SendHost {
                host,
                providers,
                families,
            } => self.on_send_host_key(code, host, providers, families),
            Popup::ConfirmSend(ask) => self.on_confirm_send_key(code, ask),
            Popup::Consent { session, wanted } => match code {
                KeyCode::Char('a') => {
                    self.consent.answer_redirects(&wanted, true);
                    self.consent.answer(&session, true);
                    self.status = "allowed for this file until you quit".into();
                    self.reformat()
                }
                KeyCode::Char('d') | KeyCode::Esc => {
                    self.consent.answer_redirects(&wanted, false);
                    // Only redirect hosts asked: the session's answer stands.
                    if wanted.iter().any(|a| a.redirect_host().is_none()) {
                        self.consent.answer(&session, false);
                    }
                    self.status =
                        "denied: nothing outside the session's folder is read or fetched".into();
                    self.reformat()
                }
                KeyCode::Char('A') => {
                    self.consent.answer_redirects(&wanted, true);
                    let dir = session.parent().map(Path::to_path_buf).unwrap_or_default();
                    let real = self.consent.trust(&dir);
                    self.status =
                        format!("sessions in {} may always read and fetch", real.display());
                    let mut cmds = vec![Command::TrustFolder(real)];
                    cmds.extend(self.reformat());
                    cmds
                }
                _ => {
                    self.popup = Some(Popup::Consent { session, wanted });
                    Vec::new()
                }
            },
        }
    }

    pub(super) fn on_conflict_key(
        &mut self,
        code: KeyCode,
        disk: FileResult,
        error: Option<String>,
    ) -> Vec<Command> {
        match code {
            KeyCode::Char('r') => {
                let FileResult::Text { text, .. } = &disk else {
                    self.popup = Some(Popup::Conflict { disk, error });
                    return Vec::new();
                };
                let Some(doc) = self.doc.as_mut() else {
                    return Vec::new();
                };
                let path = doc.path.clone();
                match crate::io::parse_read(text, &path.display().to_string()) {
                    Ok(mut session) => {
                        session.path = Some(path.clone());
                        doc.reload(session, text);
                        self.editor.error = None;
                        let mut cmds = self.installed(false);
                        cmds.push(Command::RemoveRecovery(path));
                        self.recovery_written = None;
                        cmds
                    }
                    Err(e) => {
                        self.popup = Some(Popup::Conflict {
                            disk: disk.clone(),
                            error: Some(format!("the file on disk does not parse: {e}")),
                        });
                        Vec::new()
                    }
                }
            }
            KeyCode::Char('k') | KeyCode::Esc => {
                if let Some(doc) = self.doc.as_mut() {
                    doc.disk = match &disk {
                        FileResult::Text { text, .. } => Disk::Changed {
                            text: Arc::clone(text),
                            overwrite_ok: true,
                        },
                        _ => Disk::Missing { recreate_ok: true },
                    };
                }
                self.status = "kept your edits; the file on disk differs (C-s replaces it)".into();
                Vec::new()
            }
            KeyCode::Char('s') => {
                if self.editor.has_draft() {
                    self.popup = Some(Popup::Conflict {
                        disk,
                        error: Some("the editor holds text that does not parse: keep yours (k), fix or drop it, then save".into()),
                    });
                    return Vec::new();
                }
                let Some(doc) = self.doc.as_ref() else {
                    return Vec::new();
                };
                let text = doc
                    .render()
                    .unwrap_or_else(|_| doc.session.to_session_text());
                let path = doc.path.clone();
                self.beside_for = Some(disk);
                vec![Command::SaveBeside { path, text }]
            }
            _ => {
                self.popup = Some(Popup::Conflict { disk, error });
                Vec::new()
            }
        }
    }
}
