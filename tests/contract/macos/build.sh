#!/usr/bin/env bash
# Builds the contract suite's macOS fixture (ContractApp.swift, plain AppKit) into an app
# bundle, so it runs as a regular app with a bundle id, a Dock icon and windows the
# accessibility API reports: on a Mac with the Xcode command line tools.
#
#   tests/contract/macos/build.sh [BUNDLE]    default: target/contract/ContractApp.app
#
# The suite (tests/contract/macos.rs) starts the bundle itself; CONTRACT_APP names another.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bundle="${1:-$root/target/contract/ContractApp.app}"

rm -rf "$bundle"
mkdir -p "$bundle/Contents/MacOS"
swiftc -O -o "$bundle/Contents/MacOS/ContractApp" "$here/ContractApp.swift"
cat > "$bundle/Contents/Info.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>CFBundleExecutable</key><string>ContractApp</string>
    <key>CFBundleIdentifier</key><string>dev.axgate.contract</string>
    <key>CFBundleName</key><string>ContractApp</string>
    <key>CFBundlePackageType</key><string>APPL</string>
    <key>CFBundleShortVersionString</key><string>1.0</string>
    <key>NSPrincipalClass</key><string>NSApplication</string>
    <key>LSMinimumSystemVersion</key><string>13.0</string>
</dict>
</plist>
PLIST
# An ad-hoc signature: enough for a fixture (its grants are not needed; axgate's are).
codesign --force --sign - "$bundle" >/dev/null 2>&1 || true
echo "built $bundle"
