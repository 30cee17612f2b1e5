//! `axgate test` pictures (issue 32, item 6), end to end: the built binary against a demo
//! server on a port-0 listener. `--html` writes one page with every step, the failure's
//! screenshot (an embedded PNG that decodes, the failing element outlined in it), the tree,
//! every app text escaped and a long multi-line secret masked; the failure screenshot in
//! `--artifacts` has the outline at the element's frame; `expect: {image: …}` compares a
//! screenshot with a baseline (missing, `--update-baselines`, same, changed with `diff.png`,
//! another size).

use std::path::Path;

use axgate::http::auth::tokens;
use base64::Engine as _;
use serde_json::{Value, json};

use super::{run, secret_shown_then_failing};
use crate::support::{TestServer, config};

/// The outline's colour (`scenario/picture.rs`).
const MAGENTA: [u8; 4] = [255, 0, 255, 255];

/// A server with a static token; the token.
async fn server() -> (TestServer, String) {
    let token = tokens::generate().expect("token");
    let server = TestServer::with_config(config(&format!(
        "[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:act\"] }}]\n",
        tokens::hex(&tokens::sha256(&token))
    )))
    .await;
    (server, token)
}

/// An RGBA image: width, height, pixels.
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    axgate_parse::picture::decode_rgba(png).expect("a PNG")
}

fn pixel((width, _, rgba): &(u32, u32, Vec<u8>), x: f64, y: f64) -> [u8; 4] {
    let at = ((y as usize) * (*width as usize) + x as usize) * 4;
    rgba[at..at + 4].try_into().expect("4 bytes")
}

/// `{x, y, w, h}` of a frame.
fn frame_of(value: &Value) -> [f64; 4] {
    ["x", "y", "w", "h"].map(|k| value[k].as_f64().expect("a frame field"))
}

/// Where the Form's Name field lies in pixels of the Form's screenshot: its frame less the
/// screenshot's origin, times the scale (the tool's own geometry line). Asked of a demo
/// server of its own (no token; the same apps, laid out the same).
async fn name_field_in_pixels() -> [f64; 4] {
    let server = TestServer::start().await;
    let mut client = server.client();
    client.initialize().await;
    let found = client
        .call(
            "get_element",
            json!({"app": "Form", "target": "window[0]/text_field[\"Name\"]"}),
        )
        .await;
    let [x, y, w, h] = frame_of(&found["structuredContent"]["element"]["frame"]);
    let shot = client.call("screenshot", json!({"app": "Form"})).await;
    let text: String = shot["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let number = |key: &str| -> f64 {
        let at = text.find(key).unwrap_or_else(|| panic!("{key} in {text}")) + key.len();
        let rest = &text[at..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        rest[..end].parse().expect("a number")
    };
    let (ox, oy, scale) = (number("frame x="), number(" y="), number("scale "));
    [(x - ox) * scale, (y - oy) * scale, w * scale, h * scale]
}

/// The outline lies on the rectangle's edge, not inside it nor outside it.
fn assert_outlined(image: &(u32, u32, Vec<u8>), [x, y, w, h]: [f64; 4], what: &str) {
    for (px, py) in [
        (x + 1.0, y + 1.0),
        (x + w / 2.0, y),
        (x + w - 1.0, y + h - 1.0),
        (x, y + h / 2.0),
    ] {
        assert_eq!(
            pixel(image, px, py),
            MAGENTA,
            "{what}: ({px}, {py}) on the outline"
        );
    }
    assert_ne!(
        pixel(image, x + w / 2.0, y + h / 2.0),
        MAGENTA,
        "{what}: inside"
    );
    assert_ne!(
        pixel(image, x - 3.0, y + h / 2.0),
        MAGENTA,
        "{what}: outside"
    );
}

/// The base64 of every `data:image/png` in `page`, decoded.
fn embedded_pngs(page: &str) -> Vec<Vec<u8>> {
    page.split("data:image/png;base64,")
        .skip(1)
        .map(|rest| {
            let end = rest.find('"').expect("the attribute ends");
            base64::engine::general_purpose::STANDARD
                .decode(&rest[..end])
                .expect("base64")
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write a scenario");
    path.display().to_string()
}

const PASSING: &str = include_str!("pictures/passing.yaml");

/// Names the Editor's window `<script>…` and then fails.
const INJECTED: &str = include_str!("pictures/injected.yaml");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_shows_steps_and_outlined_screenshots_escaped_and_masked() {
    let (server, token) = server().await;
    let outline = name_field_in_pixels().await;
    let dir = tempfile::tempdir().expect("dir");
    let files = [
        write(dir.path(), "passing.yaml", PASSING),
        write(
            dir.path(),
            "failing.yaml",
            // Fails on the Name field, which the screenshot outlines.
            &secret_shown_then_failing("failing", "LONG_SECRET", "Name", "nobody"),
        ),
        write(dir.path(), "injected.yaml", INJECTED),
    ];
    // Long, on several lines, with characters HTML escapes: masked before any cut or escape.
    let secret: String =
        "s3cr<e>t&\"line-one-of-a-long-secret\nsecond 'line' of it <b>\n".repeat(12);
    let page_path = dir.path().join("report/page.html");
    let artifacts = dir.path().join("artifacts");
    let (page_arg, artifacts_arg) = (
        page_path.display().to_string(),
        artifacts.display().to_string(),
    );
    let mut argv = vec![
        "test",
        "--url",
        &server.url,
        "--html",
        &page_arg,
        "--artifacts",
        &artifacts_arg,
    ];
    argv.extend(files.iter().map(String::as_str));
    let env = [
        ("AXGATE_CLIENT_TOKEN", token.as_str()),
        ("LONG_SECRET", secret.as_str()),
    ];
    let ran = run(&argv, &env).await;
    ran.expect_code(1);
    let page = std::fs::read_to_string(&page_path).expect("the page");

    // Every case and step, with status and time.
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("axgate test FAILED"), "{page}");
    for part in [
        "✓ the status is there",
        "✗ a secret typed where it shows",
        "✗ a title with a script",
        "<td>step 2</td><td>get_element</td>",
        "<td>teardown step 1</td><td>click</td>",
        "expected element.value to equal &quot;nobody&quot;",
    ] {
        assert!(page.contains(part), "{part} in the page");
    }
    // No app text becomes markup: the title is shown escaped, and the page has no script.
    assert!(!page.contains("<script"), "an injected script in the page");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;.txt"),
        "the title, escaped"
    );
    // The tree at the failure is there.
    assert!(page.contains("tree of Form"), "the tree");
    assert!(
        page.contains("[button] &quot;Submit&quot;"),
        "the tree's text"
    );
    // The secret: no run of 8 characters of any of its lines, raw or escaped.
    for line in secret.lines() {
        let chars: Vec<char> = line.chars().collect();
        for window in chars.windows(8) {
            let window: String = window.iter().collect();
            let escaped = window
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            assert!(
                !page.contains(&window) && !page.contains(&escaped),
                "{window:?} of the secret is in the page"
            );
        }
    }
    // Embedded screenshots decode; the Form's shows the Name field outlined.
    let pngs = embedded_pngs(&page);
    assert!(pngs.len() >= 2, "a screenshot per failed case");
    let outlined: Vec<_> = pngs
        .iter()
        .map(|p| decode(p))
        .filter(|image| pixel(image, outline[0] + 1.0, outline[1] + 1.0) == MAGENTA)
        .collect();
    assert_eq!(outlined.len(), 1, "the Form's screenshot is outlined");
    assert_outlined(&outlined[0], outline, "the page's screenshot");
    assert!(
        page.contains("text_field[&quot;Name&quot;] outlined"),
        "captioned"
    );

    // The failure screenshot in the artifacts has the same outline.
    let png =
        std::fs::read(artifacts.join("failing/a-secret-typed-where-it-shows/screenshot-Form.png"))
            .expect("the artifact");
    assert_outlined(&decode(&png), outline, "the artifact");
}

const PICTURED: &str = include_str!("pictures/pictured.yaml");

/// Types a name first: the window no longer looks like the baseline.
const CHANGED: &str = include_str!("pictures/changed.yaml");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_step_compares_with_its_baseline_and_leaves_a_diff() {
    let (server, token) = server().await;
    let dir = tempfile::tempdir().expect("dir");
    let pictured = write(dir.path(), "pictured.yaml", PICTURED);
    let changed = write(dir.path(), "changed.yaml", CHANGED);
    let baseline = dir.path().join("baselines/form.png");
    let artifacts = dir.path().join("artifacts");
    let artifacts_arg = artifacts.display().to_string();
    let env = [("AXGATE_CLIENT_TOKEN", token.as_str())];
    let test = |extra: &[&str], file: &str| {
        let mut argv: Vec<String> = ["test", "--url", &server.url, "--artifacts", &artifacts_arg]
            .iter()
            .map(|s| s.to_string())
            .collect();
        argv.extend(extra.iter().map(|s| s.to_string()));
        argv.push(file.to_owned());
        argv
    };
    let go = |argv: Vec<String>| async move {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run(&argv, &env).await
    };

    // No baseline yet: fails, says how to accept, keeps the image.
    let ran = go(test(&[], &pictured)).await;
    ran.expect_code(1);
    assert!(
        ran.stdout.contains(&format!(
            "there is no baseline {}: run with --update-baselines to accept",
            baseline.display()
        )),
        "{ran:?}"
    );
    let case_dir = artifacts.join("pictured/the-form-looks-the-same");
    decode(&std::fs::read(case_dir.join("actual.png")).expect("actual.png"));
    assert!(!baseline.exists());

    // --update-baselines writes it and passes; then the same window matches.
    go(test(&["--update-baselines"], &pictured))
        .await
        .expect_code(0);
    let (width, height, _) = decode(&std::fs::read(&baseline).expect("the baseline"));
    // The same window matches; the page of a passing run says so, with the step's measure.
    let page_path = dir.path().join("passed.html");
    let page_arg = page_path.display().to_string();
    go(test(&["--html", &page_arg], &pictured))
        .await
        .expect_code(0);
    let page = std::fs::read_to_string(&page_path).expect("the page");
    for part in [
        "<h1 class=\"pass\">axgate test passed</h1>",
        "1 cases in 1 files, 1 passed, 0 failed",
        "✓ the form looks the same",
        "<td class=\"pass\">ok</td><td>step 1</td><td>screenshot</td>",
        "0.00% of the pixels (0 of ",
    ] {
        assert!(page.contains(part), "{part} in {page}");
    }
    assert!(
        !page.contains("data:image/png"),
        "no picture of a passing case"
    );

    // A changed window: fails with the measure, naming diff.png and actual.png.
    let ran = go(test(&[], &changed)).await;
    ran.expect_code(1);
    let case_dir = artifacts.join("changed/the-form-with-a-name");
    for part in [
        format!("the image differs from {}: ", baseline.display()),
        "% of the pixels (".to_owned(),
        "differ by more than 16 per channel, more than the tolerance 0.01%".to_owned(),
        format!(
            "see diff.png (the differing pixels red) and actual.png in {}",
            case_dir.display()
        ),
    ] {
        assert!(ran.stdout.contains(&part), "{part} in {ran:?}");
    }
    let diff = decode(&std::fs::read(case_dir.join("diff.png")).expect("diff.png"));
    assert_eq!((diff.0, diff.1), (width, height));
    let red = diff
        .2
        .chunks_exact(4)
        .filter(|p| p == &[255, 0, 0, 255])
        .count();
    assert!(
        red > 0 && red < (width * height) as usize / 2,
        "{red} red pixels"
    );
    decode(&std::fs::read(case_dir.join("actual.png")).expect("actual.png"));
    // Another size is a clear failure, not a measure.
    assert!(
        ran.stdout
            .contains(&format!("pixels, the baseline {width}×{height}")),
        "{ran:?}"
    );
}
