//! The settings form (`s`): opened on the session's settings, the
//! profiles read again. (The explain and lint panels open themselves:
//! `RequestPane` and `LintPane` take `w` and `L`.)

use super::*;

impl App {
    /// Opens the settings form on the session's settings (`s`).
    pub(super) fn open_settings(&mut self) -> Vec<Command> {
        let Some(session) = self.session() else {
            self.status = "no session: nothing to set".into();
            return Vec::new();
        };
        // The model field shows the session's model when it is for
        // the provider on screen.
        let own = session.formatter().ok().map(|f| f.provider) == Some(self.formatter.provider);
        let mut form = SettingsForm::new(
            self.formatter.provider,
            session.model().filter(|_| own),
            session.max_tokens(),
            session.token_counter(),
            session.settings.get("request"),
            &session.settings,
        );
        let at = form.values.len().saturating_sub(2);
        if let Some(v) = form.values.get_mut(at) {
            *v = self.confirm_send_at.to_string();
        }
        // Read now: the file may have changed since the last use.
        self.reread_profiles();
        let names = match self.profiles.as_ref() {
            Ok(p) => p.list.iter().map(|p| p.name.clone()).collect(),
            Err(e) => {
                self.status = format!("profiles: {e}");
                Vec::new()
            }
        };
        let form = form.with_profile(self.profile.as_deref(), names, &self.profiles_origin());
        self.popup = Some(Popup::Settings(Box::new(form)));
        Vec::new()
    }
}
