// Rust: methods found through supertraits (engine/hierarchy.py depth_first, rust/paths.py
// trait_method): the trait's own method first, then its supertraits depth first in the
// order they are written; a type's methods are its impls' own, else the default of the
// traits it implements; a cycle of supertraits ends the walk (9 levels).
//
//   s.tag(): Shape -> Sized2 (written first) -> Named declares tag; Labeled's, one level
//     nearer, is not reached: depth first, not breadth first
//   s.name(): two paths reach Named (a diamond): one method
//   q.name(): Square implements four traits, every one reaches Named::name
//   e.missing(): Loop and Echo name each other
//
// exact: calls, imports, references, extends, implements
// path: Cargo.toml
[package]
name = "shapes"
// path: src/lib.rs
pub trait Named {
    fn name(&self) -> String {
        String::new()
    }
    fn tag(&self) -> u32 {
        0
    }
}

pub trait Sized2: Named {
               // ^ extends: shapes::Named
    fn area(&self) -> u32;
}

pub trait Labeled: Named {
                // ^ extends: shapes::Named
    fn label(&self) -> u32 {
        2
    }
    fn tag(&self) -> u32 {
        1
    }
}

pub trait Shape: Sized2 + Labeled {
                       // ^ extends: shapes::Labeled
              // ^ extends: shapes::Sized2
    fn describe(&self) -> u32 {
        self.area() + self.label()
                   // ^ calls: shapes::Labeled::label (self)
     // ^ calls: shapes::Sized2::area (self)
     // ^ calls: shapes::Square::area (dispatch)
    }
}

pub trait Loop: Echo {}
             // ^ extends: shapes::Echo
pub trait Echo: Loop {}
             // ^ extends: shapes::Loop

pub struct Square;
// ^ implements: shapes::Labeled
// ^ implements: shapes::Named
// ^ implements: shapes::Shape
// ^ implements: shapes::Sized2

impl Named for Square {}
impl Sized2 for Square {
    fn area(&self) -> u32 {
        4
    }
}
impl Labeled for Square {}
impl Shape for Square {}

pub fn through_dyn(s: &dyn Shape) -> u32 {
                        // ^ references: shapes::Shape (scope)
    s.name();
 // ^ calls: shapes::Named::name (local-type)
    s.tag();
 // ^ calls: shapes::Named::tag (local-type)
    s.label();
 // ^ calls: shapes::Labeled::label (local-type)
    s.describe()
 // ^ calls: shapes::Shape::describe (local-type)
}

pub fn through_type(q: Square) -> u32 {
                    // ^ references: shapes::Square (scope)
    q.describe();
 // ^ calls: shapes::Shape::describe (local-type)
    q.name();
 // ^ calls: shapes::Named::name (local-type)
    q.area()
 // ^ calls: shapes::Square::area (local-type)
}

pub fn through_cycle(e: &dyn Echo) {
                          // ^ references: shapes::Echo (scope)
    e.missing();
 // ^ unresolved: missing
}
