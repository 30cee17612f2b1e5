//! Simulated machine-level failures of the demo backend (revoked accessibility permission, a
//! locked screen, Secure Input held by another process): what readiness reports for each
//! and how calls fail while it lasts.

use axgate_engine::{AxError, CheckClass, ReadinessCheck};

/// A machine-level failure the demo backend can pretend to have, for readiness tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simulation {
    #[default]
    None,
    /// Accessibility permission revoked: readiness fails `ax_trusted`, per-app calls fail
    /// with [`AxError::Permission`].
    PermissionLost,
    /// Screen locked: readiness fails `screen_unlocked`, clicks and screenshots fail.
    ScreenLocked,
    /// Secure Input held by another process (a password manager in the background): an
    /// advisory only, readiness reports `secure_input` and every call still works.
    SecureInputHeld,
}

impl Simulation {
    /// The readiness checks while this simulation is active.
    pub(super) fn readiness(self) -> Vec<ReadinessCheck> {
        let mut checks = vec![ReadinessCheck {
            name: "demo_backend",
            class: CheckClass::Gate,
            ok: true,
            detail: String::new(),
        }];
        match self {
            Simulation::None => {}
            Simulation::PermissionLost => checks.push(ReadinessCheck {
                name: "ax_trusted",
                class: CheckClass::Gate,
                ok: false,
                detail: "axgate is not trusted for accessibility (simulated): grant it in System \
                         Settings > Privacy & Security > Accessibility, then restart axgate"
                    .to_owned(),
            }),
            Simulation::ScreenLocked => checks.push(ReadinessCheck {
                name: "screen_unlocked",
                class: CheckClass::Gate,
                ok: false,
                detail: "the screen is locked (simulated): unlock the session; synthetic input \
                         and screenshots do not work while it is locked"
                    .to_owned(),
            }),
            Simulation::SecureInputHeld => checks.push(ReadinessCheck {
                name: "secure_input",
                class: CheckClass::Advisory,
                ok: false,
                detail: "Secure Input is on, held by Passwords (pid 412) (simulated): typed keys \
                         may reach only it; typing goes ahead and reports when the text did not \
                         land"
                    .to_owned(),
            }),
        }
        checks
    }

    /// The error every per-app call returns while accessibility permission is missing.
    pub(super) fn check_permission(self) -> Result<(), AxError> {
        if self == Simulation::PermissionLost {
            return Err(AxError::Permission(
                "axgate is not trusted for accessibility (simulated by the demo backend); grant \
                 it in System Settings > Privacy & Security > Accessibility"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// The error `what` (clicks, screenshots) returns while the screen is locked.
    pub(super) fn check_unlocked(self, what: &str) -> Result<(), AxError> {
        if self == Simulation::ScreenLocked {
            return Err(AxError::Unsupported(format!(
                "the screen is locked (simulated by the demo backend), so {what} cannot work; \
                 unlock the session and retry"
            )));
        }
        Ok(())
    }
}
