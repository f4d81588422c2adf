//! The web server: a page per seat, its message (whole, or as server-sent events when it
//! changes), and answers. Every request names its seat by the token in its path; an unknown
//! token gets 404 and nothing else. Bodies, connections, idle connections and long polls are
//! bounded by `Limits` (`max_serve_body_bytes`, `max_serve_connections`, `serve_idle_seconds`,
//! `serve_poll_seconds`), and each live connection holds one message at most: the latest.

use super::hub::{Hub, Who};
use crate::limits::Limits;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

const PAGE: &str = include_str!("page/page.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

type Shared = Arc<Hub>;

pub fn router(hub: Shared, limits: &Limits) -> Router {
    Router::new()
        .route("/", get(home))
        .route(
            "/page.js",
            get(|| asset("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route("/page.css", get(|| asset("text/css; charset=utf-8", STYLE)))
        .route("/s/{token}", get(page))
        .route("/s/{token}/state", get(state))
        .route("/s/{token}/events", get(events))
        .route("/s/{token}/answer", post(answer))
        .route("/s/{token}/undo", post(undo))
        .fallback(|| async { refuse(404, "nothing here") })
        .layer(DefaultBodyLimit::max(limits.max_serve_body_bytes))
        .with_state(hub)
}

async fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn refuse(code: u16, msg: &str) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
    (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::json!({ "error": msg }).to_string(),
    )
        .into_response()
}

fn json_body(body: Arc<str>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}

fn unknown() -> Response {
    refuse(
        404,
        "this link is not a seat of this game: ask the host for yours",
    )
}

async fn home() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "A game of rules is served here: open the link the host gave you.\n",
    )
        .into_response()
}

async fn page(State(hub): State<Shared>, Path(token): Path<String>) -> Response {
    if hub.who(&token).is_none() {
        return unknown();
    }
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE,
    )
        .into_response()
}

#[derive(Deserialize)]
struct After {
    after: Option<u64>,
}

async fn state(
    State(hub): State<Shared>,
    Path(token): Path<String>,
    Query(q): Query<After>,
) -> Response {
    let Some(who) = hub.who(&token) else {
        return unknown();
    };
    if let Some(after) = q.after {
        let mut rx = hub.version.subscribe();
        if *rx.borrow_and_update() == after {
            let wait = Duration::from_secs(hub.limits.serve_poll_seconds);
            let _ = tokio::time::timeout(wait, rx.changed()).await;
        }
    }
    json_body(hub.message(who))
}

async fn events(State(hub): State<Shared>, Path(token): Path<String>) -> Response {
    let Some(who) = hub.who(&token) else {
        return unknown();
    };
    let rx = hub.version.subscribe();
    // The first item is the whole state now; each next one, the whole state after a change
    // (changes in between are folded: a slow reader gets the latest).
    let stream =
        futures_util::stream::unfold((hub, rx, true), move |(hub, mut rx, first)| async move {
            if !first && rx.changed().await.is_err() {
                return None;
            }
            rx.borrow_and_update();
            let msg = hub.message(who);
            Some((
                Ok::<_, Infallible>(SseEvent::default().data(&*msg)),
                (hub, rx, false),
            ))
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

#[derive(Deserialize)]
struct Answer {
    question: u64,
    option: usize,
}

/// The body as JSON of the expected shape, or a message saying what is wrong.
fn parse<T: for<'de> Deserialize<'de>>(body: &[u8], shape: &str) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("the body is not {shape}: {e}"))
}

async fn answer(
    State(hub): State<Shared>,
    Path(token): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(who) = hub.who(&token) else {
        return unknown();
    };
    let Who::Seat(seat) = who else {
        return refuse(403, "a spectator does not answer");
    };
    let a: Answer = match parse(&body, r#"{"question": N, "option": I} (I from 0)"#) {
        Ok(a) => a,
        Err(e) => return refuse(400, &e),
    };
    match hub.answer(seat, a.question, a.option) {
        Ok(()) => json_body(Arc::from(r#"{"ok":true}"#)),
        Err((code, msg)) => refuse(code, &msg),
    }
}

#[derive(Deserialize)]
struct Undo {
    question: u64,
}

async fn undo(
    State(hub): State<Shared>,
    Path(token): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(who) = hub.who(&token) else {
        return unknown();
    };
    let Who::Seat(seat) = who else {
        return refuse(403, "a spectator does not take answers back");
    };
    let u: Undo = match parse(&body, r#"{"question": N}"#) {
        Ok(u) => u,
        Err(e) => return refuse(400, &e),
    };
    match hub.undo(seat, u.question) {
        Ok(()) => json_body(Arc::from(r#"{"ok":true}"#)),
        Err((code, msg)) => refuse(code, &msg),
    }
}

/// Serve until the process ends: connections beyond `MAX_CONNECTIONS` wait for a free one.
pub fn serve(listener: std::net::TcpListener, hub: Shared) -> Result<(), String> {
    let limits = hub.limits;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the web server: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen: {e}"))?;
        let limited = Limited {
            inner: listener,
            permits: Arc::new(tokio::sync::Semaphore::new(limits.max_serve_connections)),
            idle: Duration::from_secs(limits.serve_idle_seconds.max(1)),
        };
        axum::serve(limited, router(hub, &limits))
            .await
            .map_err(|e| format!("the web server stopped: {e}"))
    })
}

/// A listener that holds a permit per open connection.
struct Limited {
    inner: tokio::net::TcpListener,
    permits: Arc<tokio::sync::Semaphore>,
    idle: Duration,
}

impl axum::serve::Listener for Limited {
    type Io = Permitted;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok(permit) = self.permits.clone().acquire_owned().await else {
                // The semaphore is never closed; wait as a listener would.
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            };
            match self.inner.accept().await {
                Ok((io, addr)) => {
                    let _ = io.set_nodelay(true);
                    let deadline = Box::pin(tokio::time::sleep(self.idle));
                    let conn = Permitted {
                        io,
                        _permit: permit,
                        idle: self.idle,
                        deadline,
                    };
                    return (conn, addr);
                }
                // Out of file descriptors and the like: wait a moment, as axum's own does.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection with its permit (closing it frees the permit) and its idle deadline: a
/// connection on which nothing was read or written for `idle` (a client that sends nothing, or
/// never reads what it is sent) ends with an error, so it holds its permit and its buffers only
/// that long. A live stream writes a keep-alive every 15 s, so a reader that reads is never idle.
struct Permitted {
    io: tokio::net::TcpStream,
    _permit: tokio::sync::OwnedSemaphorePermit,
    idle: Duration,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Permitted {
    fn progressed(&mut self) {
        let next = tokio::time::Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    /// Pending I/O: an error once the deadline has passed.
    fn waited<T>(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<T>> {
        match self.deadline.as_mut().poll(cx) {
            std::task::Poll::Ready(()) => std::task::Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the connection was idle too long",
            ))),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl tokio::io::AsyncRead for Permitted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = &mut *self;
        match std::pin::Pin::new(&mut this.io).poll_read(cx, buf) {
            std::task::Poll::Ready(r) => {
                this.progressed();
                std::task::Poll::Ready(r)
            }
            std::task::Poll::Pending => this.waited(cx),
        }
    }
}

impl tokio::io::AsyncWrite for Permitted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let this = &mut *self;
        match std::pin::Pin::new(&mut this.io).poll_write(cx, buf) {
            std::task::Poll::Ready(r) => {
                this.progressed();
                std::task::Poll::Ready(r)
            }
            std::task::Poll::Pending => this.waited(cx),
        }
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
