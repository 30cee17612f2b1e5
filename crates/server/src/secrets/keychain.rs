//! The macOS Keychain store: a generic password with service `secrets.keychain_service` and
//! account NAME, read with the `security-framework` crate. The only Apple call of the
//! secrets; every decision around it (names, policy, masking) is platform-neutral.

use super::Secret;

/// errSecItemNotFound.
#[cfg(target_os = "macos")]
const NOT_FOUND: i32 = -25300;

#[cfg(target_os = "macos")]
pub(super) fn lookup(service: &str, name: &str) -> Result<Secret, String> {
    match security_framework::passwords::get_generic_password(service, name) {
        Ok(bytes) => {
            let bytes = zeroize::Zeroizing::new(bytes);
            std::str::from_utf8(&bytes)
                .map(|text| Secret::new(text.to_owned()))
                .map_err(|_| format!("the secret {name} is not UTF-8 text; store it as text"))
        }
        Err(e) if e.code() == NOT_FOUND => Err(format!(
            "unknown secret {name}: the Keychain has no generic password with service \
             {service:?} and account {name:?}; check the name, or ask the operator to add it \
             (security add-generic-password -s {service} -a {name} -w)"
        )),
        Err(e) => Err(format!(
            "cannot read the secret {name} from the Keychain (error {}); unlock the login \
             Keychain of the user the server runs as",
            e.code()
        )),
    }
}

#[cfg(not(target_os = "macos"))]
pub(super) fn lookup(_service: &str, name: &str) -> Result<Secret, String> {
    Err(format!(
        "the secret {name} cannot be read: secrets.source = \"keychain\" needs macOS; use \
         \"env\" or \"file\" on this machine"
    ))
}
