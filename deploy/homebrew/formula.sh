#!/usr/bin/env bash
# Writes the Homebrew formula of a release to stdout, for the macOS binaries that
# .github/workflows/release.yml publishes (Apple silicon and Intel archives named
# axgate-<tag>-<target>.tar.gz).
#
#   deploy/homebrew/formula.sh TAG SHA256SUMS BASE_URL [HOMEPAGE]
#
# TAG is the release tag (v1.2.3); SHA256SUMS holds "<sha256>  <archive>" lines (sha256sum's or
# shasum -a 256's output) and must name both macOS archives of TAG; BASE_URL is where the
# archives are downloaded from (the release's download URL, or file:///… to test it before
# publishing). Exits 2, naming what is missing, when the inputs do not make a formula.
set -euo pipefail

usage() {
    echo "usage: $0 TAG SHA256SUMS BASE_URL [HOMEPAGE]" >&2
    exit 2
}
[ "$#" -ge 3 ] && [ "$#" -le 4 ] || usage
tag="$1"
sums="$2"
base="${3%/}"
homepage="${4:-https://github.com/axgate/axgate}"

if ! [[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]]; then
    echo "formula.sh: the tag '$tag' is not a release tag like v1.2.3" >&2
    exit 2
fi
[ -r "$sums" ] || { echo "formula.sh: cannot read the checksum file '$sums'" >&2; exit 2; }
version="${tag#v}"

# The checksum of one archive, or exit 2 naming it.
sum_of() {
    local archive="$1" sum
    sum="$(awk -v name="$archive" '{ file = $2; sub(/^\*/, "", file) } file == name { print $1; exit }' "$sums")"
    if ! [[ "$sum" =~ ^[0-9a-f]{64}$ ]]; then
        echo "formula.sh: $sums has no SHA-256 for $archive" >&2
        exit 2
    fi
    printf '%s' "$sum"
}
arm="axgate-${tag}-aarch64-apple-darwin.tar.gz"
intel="axgate-${tag}-x86_64-apple-darwin.tar.gz"
arm_sum="$(sum_of "$arm")"
intel_sum="$(sum_of "$intel")"

cat <<FORMULA
# Homebrew formula of axgate ${tag}, written by deploy/homebrew/formula.sh from the release's
# checksums. Install with: brew install --formula ./axgate.rb
class Axgate < Formula
  desc "MCP server that drives macOS apps through the Accessibility API for CI and agents"
  homepage "${homepage}"
  version "${version}"
  license "Apache-2.0"

  depends_on :macos

  on_macos do
    on_arm do
      url "${base}/${arm}"
      sha256 "${arm_sum}"
    end
    on_intel do
      url "${base}/${intel}"
      sha256 "${intel_sum}"
    end
  end

  def install
    bin.install "axgate"
    doc.install Dir["docs/*"]
    generate_completions_from_executable(bin/"axgate", "completions")
  end

  def caveats
    <<~EOS
      axgate needs the Accessibility permission (and Screen Recording for screenshots):
      System Settings > Privacy & Security. For a rack Mac serving CI, install it as a
      LaunchAgent in the logged-in session instead of brew services: see
      #{doc}/OPERATIONS.md.
    EOS
  end

  service do
    run [opt_bin/"axgate", "serve"]
    keep_alive true
    log_path var/"log/axgate.log"
    error_log_path var/"log/axgate.log"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/axgate --version")
    assert_match "axgate serve", shell_output("#{bin}/axgate completions bash")
    output = shell_output("#{bin}/axgate check --backend demo")
    assert_match "ready", output
  end
end
FORMULA
