// Rust: definitions, the module tree and qualified names of a crate.
// (was test_lang_rust.py: test_definitions_module_tree_and_qualified_names)
//
// - `mod x;` lines and inline `mod x { }` make the module tree: demo_crate::net::http is
//   src/net/http.rs, declared inside src/lib.rs's inline `net`;
// - methods belong to their type, even from an impl block in another file
//   (demo_crate::shapes::Circle::area in area.rs is `in:` mod.rs's Circle);
// - `mod x;` lines and `use` items both import; `pub use` points at the definition;
// - a default method calling a supertrait's method on self: the trait's method (self) and
//   any implementation (dispatch).
// Every definition, CONTAINS edge and edge of the project is asserted (exact).
//
// exact: calls, imports, references, extends, implements, defines, in
// path: Cargo.toml
[package]
name = "demo-crate"
version = "0.1.0"
// path: src/lib.rs
pub mod shapes;
     // ^ imports: demo_crate::shapes
// ^ defines: demo_crate module 1-20
mod util;
 // ^ imports: demo_crate::util
pub mod net {
     // ^ defines: demo_crate::net module 6-17
     // ^ in: demo_crate
    pub mod http;
         // ^ imports: demo_crate::net::http
    pub fn connect() -> u32 {
        // ^ defines: demo_crate::net::connect function 11-16
        // ^ in: demo_crate::net
        crate::util::helper()
     // ^ calls: demo_crate::util::helper (scope) from demo_crate::net::connect
    }
}
pub use shapes::Circle;
     // ^ imports: demo_crate::shapes::Circle
// path: src/net/http.rs
pub fn get() -> u32 {
    // ^ defines: demo_crate::net::http::get function 1-7
// ^ defines: demo_crate::net::http module 1-8
    // ^ in: demo_crate::net::http
    super::connect()
 // ^ calls: demo_crate::net::connect (scope) from demo_crate::net::http::get
}
// path: src/shapes/area.rs
use super::{Circle, Shape};
         // ^ imports: demo_crate::shapes::Circle
                 // ^ imports: demo_crate::shapes::Shape
// ^ defines: demo_crate::shapes::area module 1-13

impl Shape for Circle {
    fn area(&self) -> f64 {
    // ^ defines: demo_crate::shapes::Circle::area method 7-11
    // ^ in: demo_crate::shapes::Circle
        3.0 * self.r * self.r
    }
}
// path: src/shapes/mod.rs
mod area;
 // ^ imports: demo_crate::shapes::area
// ^ defines: demo_crate::shapes module 1-58
pub struct Circle {
        // ^ defines: demo_crate::shapes::Circle struct 4-10
// ^ implements: demo_crate::shapes::Named
// ^ implements: demo_crate::shapes::Shape
        // ^ in: demo_crate::shapes
    pub r: f64,
}
pub enum Kind {
      // ^ defines: demo_crate::shapes::Kind enum 11-16
      // ^ in: demo_crate::shapes
    Round,
    Square(u8),
}
pub trait Named {
       // ^ defines: demo_crate::shapes::Named trait 17-23
       // ^ in: demo_crate::shapes
    fn name(&self) -> String;
    // ^ defines: demo_crate::shapes::Named::name method 20-20
    // ^ in: demo_crate::shapes::Named
}
pub trait Shape: Named {
       // ^ defines: demo_crate::shapes::Shape trait 24-38
              // ^ extends: demo_crate::shapes::Named
       // ^ in: demo_crate::shapes
    fn area(&self) -> f64;
    // ^ defines: demo_crate::shapes::Shape::area method 28-28
    // ^ in: demo_crate::shapes::Shape
    fn describe(&self) -> String {
    // ^ defines: demo_crate::shapes::Shape::describe method 31-37
    // ^ in: demo_crate::shapes::Shape
        self.name()
     // ^ calls: demo_crate::shapes::Circle::name (dispatch) from demo_crate::shapes::Shape::describe
     // ^ calls: demo_crate::shapes::Named::name (self) from demo_crate::shapes::Shape::describe
    }
}
pub type Radius = f64;
      // ^ defines: demo_crate::shapes::Radius type_alias 39-39
      // ^ in: demo_crate::shapes
impl Circle {
    pub fn new(r: Radius) -> Self {
        // ^ defines: demo_crate::shapes::Circle::new method 43-49
               // ^ references: demo_crate::shapes::Radius (scope) from demo_crate::shapes::Circle::new
        // ^ in: demo_crate::shapes::Circle
        Circle { r }
     // ^ calls: demo_crate::shapes::Circle (constructor) from demo_crate::shapes::Circle::new
    }
}
impl Named for Circle {
    fn name(&self) -> String {
    // ^ defines: demo_crate::shapes::Circle::name method 52-56
    // ^ in: demo_crate::shapes::Circle
        String::from("circle")
    }
}
// path: src/util.rs
pub fn helper() -> u32 {
    // ^ defines: demo_crate::util::helper function 1-6
// ^ defines: demo_crate::util module 1-7
    // ^ in: demo_crate::util
    1
}
