//! `formatscope --listen [PORT]`: the workbench with `listen`'s receiver
//! running beside it, on the tokio runtime the sends use. The receiver
//! writes each call into the folder the workbench has open; the folder's
//! watcher brings it on screen (`App::follow`). A refused export is a
//! status line.

use super::msg::{Event, Outbox};
use formatscope_net::listen::{self, writer::Settings, Options, Said};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Where the receiver listens (127.0.0.1 only) and writes.
#[derive(Debug, Clone)]
pub struct Listening {
    pub port: u16,
    pub dir: PathBuf,
}

/// The receiver running; [`Receiver::stop`] ends it.
pub struct Receiver {
    pub addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

/// Binds and starts the receiver (the folder made first).
pub fn start(
    tokio: &tokio::runtime::Runtime,
    listening: &Listening,
    tx: Outbox,
) -> Result<Receiver, String> {
    std::fs::create_dir_all(&listening.dir)
        .map_err(|e| format!("{}: {e}", listening.dir.display()))?;
    let at = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), listening.port);
    let listener = tokio
        .block_on(tokio::net::TcpListener::bind(at))
        .map_err(|e| format!("cannot listen on {at}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let options = Options {
        dir: listening.dir.clone(),
        body_limit: listen::BODY_LIMIT,
        settings: Settings {
            request: None,
            max_files: 10_000,
        },
    };
    let say = Arc::new(move |said: Said| {
        if let Said::Refused(why) = said {
            let _ = tx.send(Event::Listened(why));
        }
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio.spawn(async move {
        let _ = listen::serve(listener, options, say, async {
            let _ = stopped.await;
        })
        .await;
    });
    Ok(Receiver { addr, stop, task })
}

impl Receiver {
    /// Stops taking exports and writes the format calls still waiting.
    pub fn stop(self, tokio: &tokio::runtime::Runtime) {
        let _ = self.stop.send(());
        let task = self.task;
        // The timer is made inside the runtime, which it needs.
        let _ =
            tokio.block_on(async move { tokio::time::timeout(Duration::from_secs(3), task).await });
    }
}
