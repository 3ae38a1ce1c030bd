//! The association state machine's states (RFC 4960 §4), named and displayed as the RFC
//! spells them. Only the states this model reaches exist: the server never enters
//! COOKIE-WAIT/COOKIE-ECHOED (its INIT-ACK keeps no state, RFC 4960 §5.1), the client never
//! enters SHUTDOWN-RECEIVED/SHUTDOWN-ACK-SENT (it is the end that closes).

use std::fmt;

/// State of an association (RFC 4960 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssocState {
    /// No association (before `open`, after close or abort).
    Closed,
    /// INIT sent, waiting for INIT-ACK (T1-init running).
    CookieWait,
    /// COOKIE-ECHO sent, waiting for COOKIE-ACK (T1-cookie running).
    CookieEchoed,
    /// Data may flow.
    Established,
    /// The application closed; waiting for outstanding data to be acknowledged.
    ShutdownPending,
    /// SHUTDOWN sent, waiting for SHUTDOWN-ACK (T2-shutdown running).
    ShutdownSent,
    /// SHUTDOWN-ACK sent, waiting for SHUTDOWN-COMPLETE (T2-shutdown running).
    ShutdownAckSent,
}

impl AssocState {
    /// Whether DATA, SACK and HEARTBEAT traffic belongs to this state.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            AssocState::Established
                | AssocState::ShutdownPending
                | AssocState::ShutdownSent
                | AssocState::ShutdownAckSent
        )
    }
}

impl fmt::Display for AssocState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AssocState::Closed => "CLOSED",
            AssocState::CookieWait => "COOKIE-WAIT",
            AssocState::CookieEchoed => "COOKIE-ECHOED",
            AssocState::Established => "ESTABLISHED",
            AssocState::ShutdownPending => "SHUTDOWN-PENDING",
            AssocState::ShutdownSent => "SHUTDOWN-SENT",
            AssocState::ShutdownAckSent => "SHUTDOWN-ACK-SENT",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 4960 §4: states are displayed with the RFC's spelling.
    #[test]
    fn display_uses_rfc_spelling() {
        assert_eq!(AssocState::CookieEchoed.to_string(), "COOKIE-ECHOED");
        assert_eq!(AssocState::ShutdownAckSent.to_string(), "SHUTDOWN-ACK-SENT");
        assert!(!AssocState::CookieWait.is_open());
    }
}
