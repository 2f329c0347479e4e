// Rust: use paths, re-exports, globs, renames and externals.
// (was test_lang_rust.py: test_use_paths_reexports_globs_renames_and_externals)
//
// test_use_paths_reexports_globs_renames_and_externals:
//   `self` in a group
//   `Config as Cfg`
//   a glob imports its module
//   `start as boot`
//   through the glob of a module that re-exports `start as boot`
//   `let c: Cfg` and `let e = boot()` (boot's declared return type)
//   a parameter of an external type: the call is to the external method
//   a field with a declared type
//   `.unwrap()` on what an external function returns is a standard method: builtin
//
// expect: calls.total = 13
// expect: calls.builtin = 1
// expect: calls.unresolved = 0
// expect: calls.resolved = 12
// exact: calls, imports, references, extends, implements
// path: Cargo.toml
[package]
name = "demo"
// path: src/api.rs
use crate::engine::config::{self, Config as Cfg};
 // ^ imports: demo::engine::config
                               // ^ imports: demo::engine::config::Config
use crate::prelude::*;
 // ^ imports: demo::prelude
use std::fmt;
 // ^ imports: <external>::std::fmt

pub fn serve() -> u32 {
    let e = boot();
         // ^ calls: demo::engine::start (import)
    let c: Cfg = config::load();
              // ^ calls: demo::engine::config::load (import)
              // ^ references: demo::engine::config::Config (import)
    c.level();
 // ^ calls: demo::engine::config::Config::level (local-type)
    e.run()
 // ^ calls: demo::engine::Engine::run (local-type)
}
pub fn show(f: &mut fmt::Formatter) -> fmt::Result {
    f.write_str("x")
 // ^ calls: <external>::std::fmt::Formatter::write_str (local-type)
}
pub fn dump() -> String {
    serde_json::to_string(&1).unwrap()
 // ^ calls: <external>::serde_json::to_string (import)
}
// path: src/engine/config.rs
pub struct Config {
    level: u32,
}
pub fn load() -> Config {
              // ^ references: demo::engine::config::Config (scope)
    Config { level: 1 }
 // ^ calls: demo::engine::config::Config (constructor)
}
impl Config {
    pub fn level(&self) -> u32 {
        self.level
    }
}
pub fn defaults() -> Config {
                  // ^ references: demo::engine::config::Config (scope)
    super::super::engine::config::load()
 // ^ calls: demo::engine::config::load (scope)
}
// path: src/engine/mod.rs
pub mod config;
     // ^ imports: demo::engine::config
use serde::Serialize;
 // ^ imports: <external>::serde::Serialize
use std::collections::HashMap;
 // ^ imports: <external>::std::collections::HashMap

pub struct Engine {
    pub cfg: config::Config,
          // ^ references: demo::engine::config::Config (scope)
    map: HashMap<String, u32>,
}
pub fn start() -> Engine {
               // ^ references: demo::engine::Engine (scope)
    let cfg = self::config::load();
           // ^ calls: demo::engine::config::load (scope)
    Engine { cfg, map: HashMap::new() }
                    // ^ calls: <external>::std::collections::HashMap::new (import)
 // ^ calls: demo::engine::Engine (constructor)
}
impl Engine {
    pub fn run(&self) -> u32 {
        self.cfg.level()
     // ^ calls: demo::engine::config::Config::level (local-type)
    }
}
// path: src/lib.rs
pub mod engine;
     // ^ imports: demo::engine
pub mod api;
     // ^ imports: demo::api
pub mod prelude {
    pub use crate::engine::{start as boot, Engine};
                                        // ^ imports: demo::engine::Engine
                         // ^ imports: demo::engine::start
}
