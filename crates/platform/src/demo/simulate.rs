//! Simulated machine-level failures of the demo backend (revoked accessibility permission, a
//! locked screen): what readiness reports for each and how calls fail while it lasts.

use axgate_engine::{AxError, ReadinessCheck};

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
}

impl Simulation {
    /// The readiness checks while this simulation is active.
    pub(super) fn readiness(self) -> Vec<ReadinessCheck> {
        let mut checks = vec![ReadinessCheck {
            name: "demo_backend",
            ok: true,
            detail: String::new(),
        }];
        match self {
            Simulation::None => {}
            Simulation::PermissionLost => checks.push(ReadinessCheck {
                name: "ax_trusted",
                ok: false,
                detail: "axgate is not trusted for accessibility (simulated): grant it in System \
                         Settings > Privacy & Security > Accessibility, then restart axgate"
                    .to_owned(),
            }),
            Simulation::ScreenLocked => checks.push(ReadinessCheck {
                name: "screen_unlocked",
                ok: false,
                detail: "the screen is locked (simulated): unlock the session; synthetic input \
                         and screenshots do not work while it is locked"
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
