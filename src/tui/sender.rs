//! Live sends from the workbench: one thread runs a tokio runtime; each send
//! is a task the UI can cancel (the connection closes); progress comes back
//! to the loop as `Msg::Reply`. Keys come from the environment, as for
//! `formatscope send`, and never reach the screen or the log.

use super::msg::Msg;
use super::panes::reply::ReplyUpdate;
use crate::formatter::FormatterId;
use crate::net::{self, Timeouts};
use crate::pipeline::{run_request, ReferenceRequest};
use crate::session::Session;
use crate::wire::Settings;
use std::collections::HashMap;
use std::sync::mpsc::Sender as MsgSender;

/// A send to make.
#[derive(Debug)]
pub struct SendJob {
    pub id: u64,
    pub session: Box<Session>,
    pub formatter: FormatterId,
    pub settings: Box<Settings>,
}

enum Job {
    Send(SendJob),
    Cancel(u64),
}

pub struct Sender {
    tx: tokio::sync::mpsc::UnboundedSender<Job>,
}

impl Sender {
    /// Starts the thread; `None` when no runtime could be made.
    pub fn start(msgs: MsgSender<Msg>) -> Option<Sender> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Job>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        std::thread::Builder::new()
            .name("formatscope-send".into())
            // Tool arguments are repaired here, recursively (as Python's
            // json_repair): room for the deepest input it accepts.
            .stack_size(8 << 20)
            .spawn(move || {
                runtime.block_on(async move {
                    let client = net::client(Timeouts::default()).ok();
                    let mut running: HashMap<u64, tokio::task::AbortHandle> = HashMap::new();
                    while let Some(job) = rx.recv().await {
                        running.retain(|_, h| !h.is_finished());
                        match job {
                            Job::Cancel(id) => {
                                if let Some(h) = running.remove(&id) {
                                    h.abort();
                                    let _ = msgs.send(Msg::Reply {
                                        id,
                                        update: ReplyUpdate::Cancelled,
                                    });
                                }
                            }
                            Job::Send(job) => {
                                let id = job.id;
                                let Some(client) = client.clone() else {
                                    let _ = msgs.send(Msg::Reply {
                                        id,
                                        update: ReplyUpdate::Failed(
                                            "no HTTP client could be made".into(),
                                        ),
                                    });
                                    continue;
                                };
                                let msgs = msgs.clone();
                                let task = tokio::spawn(run(client, job, msgs));
                                running.insert(id, task.abort_handle());
                            }
                        }
                    }
                });
            })
            .ok()?;
        Some(Sender { tx })
    }

    pub fn send(&self, job: SendJob) {
        let _ = self.tx.send(Job::Send(job));
    }

    pub fn cancel(&self, id: u64) {
        let _ = self.tx.send(Job::Cancel(id));
    }
}

async fn run(client: reqwest::Client, job: SendJob, msgs: MsgSender<Msg>) {
    let id = job.id;
    let say = |update: ReplyUpdate| {
        let _ = msgs.send(Msg::Reply { id, update });
    };
    let provider = job.formatter.provider;
    let mut settings = *job.settings;
    if let Some(url) = std::env::var(net::base_url_variable(provider))
        .ok()
        .filter(|u| !u.is_empty())
    {
        net::apply_base_url(provider, &mut settings.model_kwargs, &url);
    }
    let request = ReferenceRequest {
        formatter: job.formatter,
        options: Default::default(),
        max_tokens: None,
        count: false,
        tools: false,
        token_counter: None,
    };
    // The wire view's media rules: local files, no downloads.
    let env = crate::media::MediaEnv::new(
        job.session.base_dir(),
        std::sync::Arc::new(crate::media::NoNetwork),
    );
    let out = run_request(&job.session, &request, &settings, &env);
    let (prepared, opts) = match net::prepare(provider, &out, false) {
        Ok(p) => p,
        Err(e) => return say(ReplyUpdate::Failed(e)),
    };
    let key = match net::find_key(provider, |k| std::env::var(k).ok()) {
        Ok(k) => k,
        Err(e) => return say(ReplyUpdate::Failed(e.to_string())),
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
