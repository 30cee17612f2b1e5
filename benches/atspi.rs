//! Benchmark of whole-tree reads over AT-SPI: axgate's `get_tree` (all nodes, through MCP)
//! against a pyatspi recursive walk of the same app reading the same attributes (role, name,
//! states, frame), on gtk3-widget-factory, on a generated app of about 2,000 widgets
//! (`tests/desktop/apps/rows.py 490 --box`) and on such rows inside a GtkListBox (a
//! `manages-descendants` container, read without the cache). Reports time ratio, round
//! trips per node and nodes/s. Then acting (`atspi/acts.rs`): verified clicks, a click
//! without effect and typing, each beside the raw backend call in the same run.
//! `AXGATE_BENCH_QUICK=1`: fewer runs; `AXGATE_BENCH_ACTS_ONLY=1`: acting only.
//! Needs the headless desktop:
//!
//! ```text
//! tests/desktop/session.sh -- cargo bench --bench atspi
//! ```

#[cfg(target_os = "linux")]
#[path = "../tests/support/mod.rs"]
mod support;

#[cfg(target_os = "linux")]
#[path = "../tests/desktop/harness.rs"]
mod harness;

#[cfg(target_os = "linux")]
#[path = "atspi/acts.rs"]
mod acts;

#[cfg(target_os = "linux")]
fn main() {
    linux::main();
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("the AT-SPI benchmark runs on Linux only");
}

#[cfg(target_os = "linux")]
mod linux {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::harness::{App, AtspiServer, pyatspi_walk, require_desktop};

    const RUNS: usize = 5;

    fn median(mut xs: Vec<f64>) -> f64 {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    }

    struct Figures {
        app: String,
        py_nodes: usize,
        py_secs: f64,
        ax_nodes: usize,
        ax_secs: f64,
        trips_per_node: f64,
        /// Nodes with a frame: axgate reads frames of showing nodes only.
        ax_frames: usize,
        py_frames: usize,
    }

    async fn measure(server: &AtspiServer, name: &str) -> Figures {
        // The baseline first.
        let mut py = Vec::new();
        let mut py_nodes = 0;
        let mut py_frames = 0;
        for _ in 0..3 {
            let walk = pyatspi_walk(name);
            let list = walk["nodes"].as_array().cloned().unwrap_or_default();
            py_nodes = list.len();
            py_frames = list
                .iter()
                .filter(|n| n["frame"][2].as_i64().is_some_and(|w| w > 0))
                .filter(|n| n["frame"][0].as_i64().is_some_and(|x| x > -1_000_000))
                .count();
            py.push(walk["seconds"].as_f64().unwrap_or(f64::NAN));
        }
        let mut c = server.session().await;
        let args = json!({"app": name, "depth": 64, "max_nodes": 20000});
        // Warm-up: resolves the app and opens the connection.
        c.call("get_tree", args.clone()).await;
        let mut times = Vec::new();
        let mut trips = Vec::new();
        let mut nodes = 0;
        let mut ax_frames = 0;
        for _ in 0..RUNS {
            let started = Instant::now();
            let result = c.call("get_tree", args.clone()).await;
            times.push(started.elapsed().as_secs_f64());
            let out = &result["structuredContent"];
            assert_ne!(result["isError"], true, "{result}");
            nodes = out["walked"].as_u64().unwrap_or(0) as usize;
            ax_frames = out["nodes"]
                .as_array()
                .map_or(0, |l| l.iter().filter(|n| n["frame"].is_object()).count());
            trips.push(out["round_trips"].as_f64().unwrap_or(f64::NAN) / nodes.max(1) as f64);
        }
        Figures {
            app: name.to_owned(),
            py_nodes,
            py_secs: median(py),
            ax_nodes: nodes,
            ax_secs: median(times),
            trips_per_node: median(trips),
            ax_frames,
            py_frames,
        }
    }

    fn report(f: &Figures) {
        println!(
            "{:<20} pyatspi {:>5} nodes {:>7.1} ms {:>6.0} nodes/s | axgate {:>5} nodes {:>6.1} ms {:>6.0} nodes/s {:.3} trips/node | {:.1}x faster",
            f.app,
            f.py_nodes,
            f.py_secs * 1e3,
            f.py_nodes as f64 / f.py_secs,
            f.ax_nodes,
            f.ax_secs * 1e3,
            f.ax_nodes as f64 / f.ax_secs,
            f.trips_per_node,
            f.py_secs / f.ax_secs,
        );
        println!(
            "{:<20} frames: pyatspi read {} plausible ones of {} nodes; axgate reads frames of showing nodes only ({} shown nodes have one)",
            "", f.py_frames, f.py_nodes, f.ax_frames
        );
    }

    pub(super) fn main() {
        require_desktop();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            // Acts now take less than the default write limit's 100 ms apart (10 per second).
            let server = AtspiServer::start(
                "[backend]\ncall_timeout_ms = 60000\n[limits]\ncalls_per_second = 100000\nwrites_per_second = 100000\n",
            )
            .await;
            if std::env::var_os("AXGATE_BENCH_ACTS_ONLY").is_some() {
                super::acts::measure(&server).await;
                return;
            }
            let factory = App::program("gtk3-widget-factory", "gtk3-widget-factory");
            std::thread::sleep(Duration::from_millis(500));
            let f1 = measure(&server, "gtk3-widget-factory").await;
            drop(factory);
            let rows = App::start("rows.py", &["490", "--box"], "axgate-rows");
            let f2 = measure(&server, "axgate-rows").await;
            drop(rows);
            std::thread::sleep(Duration::from_millis(300));
            let listed = App::start("rows.py", &["390"], "axgate-listbox");
            let f3 = measure(&server, "axgate-listbox").await;
            drop(listed);
            println!("\nAT-SPI whole-tree read, median of {RUNS} (pyatspi: of 3)");
            report(&f1);
            report(&f2);
            report(&f3);
            println!(
                "(axgate-listbox holds the same rows in a GtkListBox, which manages its \
                 descendants: the AT-SPI cache leaves them out, so they are read by direct calls)"
            );
            let ratio = f2.py_secs / f2.ax_secs;
            println!(
                "targets on the 2,000-widget app: >= 3x faster: {} ({ratio:.1}x); <= 1.2 round trips/node: {} ({:.3})",
                if ratio >= 3.0 { "met" } else { "MISSED" },
                if f2.trips_per_node <= 1.2 { "met" } else { "MISSED" },
                f2.trips_per_node
            );
            super::acts::measure(&server).await;
        });
    }
}
