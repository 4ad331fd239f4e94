//! Live sends from the workbench: each send is a task on the loop's tokio
//! runtime that the UI can cancel (the connection closes); progress comes
//! back to the loop as `Msg::Reply`. Keys come from the environment, as for
//! `formatscope send`, and never reach the screen or the log.

use super::msg::{Msg, Outbox};
use super::panes::reply::ReplyUpdate;
use crate::formatter::FormatterId;
use crate::net::{self, Prepared, Timeouts};
use crate::pipeline::run_request_local;
use crate::session::Session;
use crate::wire::Settings;

/// A send to make.
#[derive(Debug)]
pub struct SendJob {
    pub id: u64,
    pub session: Box<Session>,
    pub formatter: FormatterId,
    pub settings: Box<Settings>,
}

/// The request a job describes, ready to send, with its parse options and
/// key; or why not.
fn prepare(
    job: &SendJob,
) -> Result<(Prepared, crate::response::Options, Option<net::ApiKey>), String> {
    let provider = job.formatter.provider;
    let mut settings = (*job.settings).clone();
    net::apply_base_url_from_env(provider, &mut settings.model_kwargs);
    let out = run_request_local(&job.session, job.formatter, &settings);
    let split = net::session_splits_think_tags(&job.session.settings);
    let (prepared, opts) = net::prepare(provider, &out, split)?;
    let key = net::find_key(provider, |k| std::env::var(k).ok()).map_err(|e| e.to_string())?;
    Ok((prepared, opts, key))
}

/// One send, as a task on the loop's runtime: builds the request (the
/// wire view's), sends it, and reports every parsed response.
pub async fn run(client: reqwest::Client, job: SendJob, msgs: Outbox) {
    let id = job.id;
    let say = |update: ReplyUpdate| {
        let _ = msgs.send(Msg::Reply { id, update });
    };
    let (prepared, opts, key) = match prepare(&job) {
        Ok(p) => p,
        Err(e) => return say(ReplyUpdate::Failed(e)),
    };
    say(ReplyUpdate::Started {
        url: prepared.url.clone(),
        stream: prepared.stream,
    });
    let result = net::send(
        &client,
        &prepared,
        key.as_ref(),
        &opts,
        Timeouts::default(),
        |r| say(ReplyUpdate::Chunk(Box::new(r.clone()))),
    )
    .await;
    match result {
        Ok(outcome) => say(ReplyUpdate::Done(Box::new(outcome))),
        Err(e) => say(ReplyUpdate::Failed(e.to_string())),
    }
}

/// The provider's own count of the request (`R`): Anthropic's
/// `count_tokens`, Gemini's `countTokens`. `job.id` is the preview's
/// generation it counts.
pub async fn count(client: reqwest::Client, job: SendJob, msgs: Outbox) {
    let provider = job.formatter.provider;
    let result = match prepare(&job) {
        Err(e) => Err(e),
        Ok((prepared, _, key)) => net::count_remote(
            &client,
            provider,
            &prepared,
            key.as_ref(),
            Timeouts::default(),
        )
        .await
        .map_err(|e| e.to_string()),
    };
    let _ = msgs.send(Msg::RemoteCounted {
        generation: job.id,
        provider,
        result,
    });
}
