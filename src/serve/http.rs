//! The web server: a page per seat, its message (whole, or as server-sent events when it
//! changes), and answers. Every request names its seat by the token in its path; an unknown
//! token gets 404 and nothing else. Bodies, connections (counted by seat: `slots.rs`), each
//! seat's requests (429 past its rate), the time to send a request (its head and its body, a
//! deadline each that trickling does not move), idle connections and long polls are bounded by
//! `Limits` (`max_serve_*`, `serve_*`). Hyper runs each connection with a small buffer
//! (`MAX_BUF`), so a live stream whose reader does not read holds one message beyond it, the
//! newest when it reads again (the stream folds the changes in between), never a queue.

use super::hub::{Hub, Who};
use super::slots::Conn;
use crate::limits::Limits;
use axum::extract::{DefaultBodyLimit, Extension, Path, Query, State};
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
    let mut r = Router::new()
        .route("/", get(home))
        .route(
            "/page.js",
            get(|| asset("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route("/page.css", get(|| asset("text/css; charset=utf-8", STYLE)));
    // A QR code holds the link in capitals (`qr::for_code`): `/S/TOKEN` is the same seat.
    for s in ["s", "S"] {
        r = r
            .route(&format!("/{s}/{{token}}"), get(page))
            .route(&format!("/{s}/{{token}}/state"), get(state))
            .route(&format!("/{s}/{{token}}/events"), get(events))
            .route(&format!("/{s}/{{token}}/answer"), post(answer))
            .route(&format!("/{s}/{{token}}/undo"), post(undo));
    }
    r.fallback(|| async { refuse(404, "nothing here") })
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

/// The seat a request's token names, once its connection is counted as that seat's and the
/// seat has requests left; else the answer to send.
fn admit(
    hub: &Hub,
    conn: Option<&Extension<Arc<Conn>>>,
    token: &str,
) -> Result<Who, Box<Response>> {
    let Some(who) = hub.who(token) else {
        return Err(Box::new(unknown()));
    };
    if let Some(Extension(conn)) = conn {
        if !hub.slots.claim(conn, who) {
            return Err(Box::new(refuse(
                503,
                "too many spectators are connected: try again later",
            )));
        }
    }
    if !hub.rates.allow(who) {
        let mut r = refuse(429, "too many requests from this link: wait a moment");
        r.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        return Err(Box::new(r));
    }
    Ok(who)
}

/// A request's body, read within the head's deadline again: a body trickled slower is refused.
async fn read_body(hub: &Hub, body: axum::body::Body) -> Result<axum::body::Bytes, Box<Response>> {
    let wait = Duration::from_secs(hub.limits.serve_head_seconds.max(1));
    match tokio::time::timeout(
        wait,
        axum::body::to_bytes(body, hub.limits.max_serve_body_bytes),
    )
    .await
    {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(_)) => Err(Box::new(refuse(
            413,
            "the body is too long (or was cut off): an answer is a few dozen bytes",
        ))),
        Err(_) => Err(Box::new(refuse(408, "the body came too slowly"))),
    }
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

async fn page(
    State(hub): State<Shared>,
    conn: Option<Extension<Arc<Conn>>>,
    Path(token): Path<String>,
) -> Response {
    if let Err(r) = admit(&hub, conn.as_ref(), &token) {
        return *r;
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
    conn: Option<Extension<Arc<Conn>>>,
    Path(token): Path<String>,
    Query(q): Query<After>,
) -> Response {
    let who = match admit(&hub, conn.as_ref(), &token) {
        Ok(w) => w,
        Err(r) => return *r,
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

async fn events(
    State(hub): State<Shared>,
    conn: Option<Extension<Arc<Conn>>>,
    Path(token): Path<String>,
) -> Response {
    let who = match admit(&hub, conn.as_ref(), &token) {
        Ok(w) => w,
        Err(r) => return *r,
    };
    let rx = hub.version.subscribe();
    // The first item is the whole state now; each next one, the whole state after a change
    // (changes in between are folded: a slow reader gets the latest). Hyper asks for the next
    // item only once what it holds to write is under `MAX_BUF`.
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
    conn: Option<Extension<Arc<Conn>>>,
    Path(token): Path<String>,
    body: axum::body::Body,
) -> Response {
    let who = match admit(&hub, conn.as_ref(), &token) {
        Ok(w) => w,
        Err(r) => return *r,
    };
    let Who::Seat(seat) = who else {
        return refuse(403, "a spectator does not answer");
    };
    let body = match read_body(&hub, body).await {
        Ok(b) => b,
        Err(r) => return *r,
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
    conn: Option<Extension<Arc<Conn>>>,
    Path(token): Path<String>,
    body: axum::body::Body,
) -> Response {
    let who = match admit(&hub, conn.as_ref(), &token) {
        Ok(w) => w,
        Err(r) => return *r,
    };
    let Who::Seat(seat) = who else {
        return refuse(403, "a spectator does not take answers back");
    };
    let body = match read_body(&hub, body).await {
        Ok(b) => b,
        Err(r) => return *r,
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

/// The most a connection buffers to read or write beyond what the socket took (hyper's least
/// is 8 KiB): a request's head must fit, and a live stream holds one message past it.
const MAX_BUF: usize = 16 * 1024;

/// Serve until the process ends. Each connection gets its slot (`slots.rs`) and runs on hyper
/// with the head's deadline (`serve_head_seconds`, from when its head begins, however slowly it
/// comes) and a small buffer (`MAX_BUF`).
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
        let app = router(hub.clone(), &limits);
        let idle = Duration::from_secs(limits.serve_idle_seconds.max(1));
        let head = Duration::from_secs(limits.serve_head_seconds.max(1));
        loop {
            let io = match listener.accept().await {
                Ok((io, _)) => io,
                // Out of file descriptors and the like: wait a moment, as axum's own does.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = io.set_nodelay(true);
            tokio::spawn(connection(io, hub.clone(), app.clone(), idle, head));
        }
    })
}

/// One connection, from its first byte to its end: its slot, hyper with the head's deadline
/// and the small buffer, the routes. Public for the `serve_requests` fuzz target, which runs
/// it over in-memory pipes (`fuzz/common.rs`).
#[doc(hidden)]
pub fn connection<IO>(
    io: IO,
    hub: Shared,
    app: Router,
    idle: Duration,
    head: Duration,
) -> impl Future<Output = ()> + Send + 'static
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let conn = hub.slots.open();
    let io = Permitted {
        io,
        conn: conn.clone(),
        hub,
        idle,
        deadline: Box::pin(tokio::time::sleep(idle)),
    };
    let service = hyper::service::service_fn(
        move |mut req: axum::http::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(conn.clone());
            let mut app = app.clone();
            async move { tower_service::Service::call(&mut app, req.map(axum::body::Body::new)).await }
        },
    );
    async move {
        let mut b = hyper::server::conn::http1::Builder::new();
        b.timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(head)
            .max_buf_size(MAX_BUF);
        let _ = b
            .serve_connection(hyper_util::rt::TokioIo::new(io), service)
            .await;
    }
}

/// A connection with its slot (freed when it closes; taken back by `slots.rs`, it fails at its
/// next read or write) and its idle deadline: a connection on which nothing was read or
/// written for `idle` (a client that sends nothing, or never reads what it is sent) ends with
/// an error, so it holds its slot and its buffers only that long. A live stream writes a
/// keep-alive every 15 s, so a reader that reads is never idle.
struct Permitted<IO> {
    io: IO,
    conn: Arc<Conn>,
    hub: Shared,
    idle: Duration,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl<IO> Drop for Permitted<IO> {
    fn drop(&mut self) {
        self.hub.slots.release(&self.conn);
    }
}

fn closed<T>() -> std::task::Poll<std::io::Result<T>> {
    std::task::Poll::Ready(Err(std::io::Error::new(
        std::io::ErrorKind::ConnectionAborted,
        "the connection's slot was given to a newer one",
    )))
}

impl<IO> Permitted<IO> {
    fn progressed(&mut self) {
        let next = tokio::time::Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    /// Pending I/O: an error once the deadline has passed or the slot was taken back.
    fn waited<T>(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<T>> {
        self.conn.park(cx.waker());
        if self.conn.closed() {
            return closed();
        }
        match self.deadline.as_mut().poll(cx) {
            std::task::Poll::Ready(()) => std::task::Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the connection was idle too long",
            ))),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl<IO: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Permitted<IO> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.conn.closed() {
            return closed();
        }
        match std::pin::Pin::new(&mut this.io).poll_read(cx, buf) {
            std::task::Poll::Ready(r) => {
                this.progressed();
                std::task::Poll::Ready(r)
            }
            std::task::Poll::Pending => this.waited(cx),
        }
    }
}

impl<IO: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Permitted<IO> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if this.conn.closed() {
            return closed();
        }
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
