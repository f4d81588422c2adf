//! The address other machines reach this one at, for the links printed when `rules serve`
//! listens on every interface (`--lan`, `--bind 0.0.0.0`): a UDP socket "connected" to an
//! address that is never on the internet (TEST-NET-1, a private address) sends nothing, but
//! its local address is the one the system would send from, its address on the network.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};

/// This machine's address on its network, of the family of `bind` first (an IPv6 `::` also
/// takes IPv4 on most systems, and phones reach IPv4 more often: it is tried first there);
/// `None` when there is no network (only loopback).
pub fn address(bind: IpAddr) -> Option<IpAddr> {
    let v4 = || {
        probe(
            SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
            &[
                SocketAddr::from((Ipv4Addr::new(192, 0, 2, 1), 9)),
                SocketAddr::from((Ipv4Addr::new(10, 254, 254, 254), 9)),
            ],
        )
    };
    let v6 = || {
        probe(
            SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
            &[SocketAddr::from((
                Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1),
                9,
            ))],
        )
    };
    match bind {
        IpAddr::V4(_) => v4(),
        IpAddr::V6(_) => v4().or_else(v6),
    }
}

fn probe(local: SocketAddr, targets: &[SocketAddr]) -> Option<IpAddr> {
    let socket = UdpSocket::bind(local).ok()?;
    targets.iter().find_map(|t| {
        socket.connect(t).ok()?;
        let ip = socket.local_addr().ok()?.ip();
        (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
    })
}
