// Rust: calls on typed receivers, constructors, trait dispatch and macros.
// (was test_lang_rust.py: test_calls_receivers_constructors_dispatch_and_macros)
//
// test_calls_receivers_constructors_dispatch_and_macros:
//   `Self { id }`
//   `Self::fresh()`
//   `&dyn Store`: the trait's method, and each implementation that overrides it
//   `S: Store`: the same through a bounded generic
//   let item = Item::new(1)
//   a tuple struct
//   w.0 of Wrapper(pub Item)
//   a default method of Memory's trait
//   a unit struct's own method
//   an enum variant
//   `Type::method(recv)`
//   inside vec![...]: macro arguments are parsed
//   z's type is unknown; relabel is defined once in the repository
//   builtin: vec!, println!, assert_eq!, v.len(), x.count_ones(), item.clone() (derived),
//   self.id.to_string(), self.items.get(), .cloned(), .unwrap();
//   unresolved: helper_unknown(), log::info!, compute(), z.frobnicate()
//
// expect: calls.total = 33
// expect: calls.builtin = 10
// expect: calls.unresolved = 4
// expect: calls.resolved = 19
// exact: calls, imports, references, extends, implements
// path: Cargo.toml
[package]
name = "demo"
// path: src/lib.rs
pub mod model;
     // ^ imports: demo::model
pub mod service;
     // ^ imports: demo::service
// path: src/model.rs
pub trait Store {
    fn get(&self, key: u32) -> Option<Item>;
                                   // ^ references: demo::model::Item (scope)
    fn size(&self) -> usize {
        0
    }
}
#[derive(Clone, Debug, Default)]
pub struct Item {
    pub id: u32,
}
impl Item {
    pub fn new(id: u32) -> Self {
        Self { id }
     // ^ calls: demo::model::Item (constructor)
    }
    pub fn label(&self) -> String {
        self.id.to_string()
    }
    pub fn relabel(&self) -> String {
        Self::fresh();
     // ^ calls: demo::model::Item::fresh (self)
        self.label()
     // ^ calls: demo::model::Item::label (self)
    }
    fn fresh() -> Item {
               // ^ references: demo::model::Item (scope)
        Item::new(0)
     // ^ calls: demo::model::Item::new (scope)
    }
}
pub struct Memory {
// ^ implements: demo::model::Store
    items: Vec<Item>,
            // ^ references: demo::model::Item (scope)
    pub primary: Item,
}
impl Store for Memory {
    fn get(&self, key: u32) -> Option<Item> {
                                   // ^ references: demo::model::Item (scope)
        self.items.get(key as usize).cloned()
    }
}
pub struct Disk;
// ^ implements: demo::model::Store
impl Store for Disk {
    fn get(&self, _key: u32) -> Option<Item> {
                                    // ^ references: demo::model::Item (scope)
        None
    }
    fn size(&self) -> usize {
        1
    }
}
pub struct Wrapper(pub Item);
                    // ^ references: demo::model::Item (scope)
pub enum Event {
    Created(u32),
    Deleted,
}
// path: src/service.rs
use crate::model::{Disk, Event, Item, Memory, Store, Wrapper};
                // ^ imports: demo::model::Disk
                      // ^ imports: demo::model::Event
                             // ^ imports: demo::model::Item
                                   // ^ imports: demo::model::Memory
                                           // ^ imports: demo::model::Store
                                                  // ^ imports: demo::model::Wrapper

pub fn lookup<S: Store>(store: &S, key: u32) -> Option<Item> {
                                                    // ^ references: demo::model::Item (import)
    store.get(key)
 // ^ calls: demo::model::Disk::get (dispatch)
 // ^ calls: demo::model::Memory::get (dispatch)
 // ^ calls: demo::model::Store::get (local-type)
}
pub fn count(store: &dyn Store) -> usize {
                      // ^ references: demo::model::Store (import)
    store.size()
 // ^ calls: demo::model::Disk::size (dispatch)
 // ^ calls: demo::model::Store::size (local-type)
}
pub fn flow(m: &Memory) -> String {
             // ^ references: demo::model::Memory (import)
    let item = Item::new(1);
            // ^ calls: demo::model::Item::new (import)
    item.label();
 // ^ calls: demo::model::Item::label (local-type)
    let w = Wrapper(item.clone());
         // ^ calls: demo::model::Wrapper (constructor)
    w.0.relabel();
     // ^ calls: demo::model::Item::relabel (local-type)
    m.primary.label();
    m.size();
 // ^ calls: demo::model::Store::size (local-type)
    Disk.size();
 // ^ calls: demo::model::Disk::size (import)
    let _e = Event::Created(3);
          // ^ calls: demo::model::Event (constructor)
    Memory::get(m, 1);
 // ^ calls: demo::model::Memory::get (import)
    let found = lookup(m, 2).unwrap();
             // ^ calls: demo::service::lookup (scope)
    found.label()
}
pub fn noise(x: u32) {
    let v = vec![Item::new(x)];
              // ^ calls: demo::model::Item::new (import)
    println!("{}", v.len());
    assert_eq!(helper_unknown(), 1);
            // ^ unresolved: helper_unknown
    log::info!("x");
 // ^ unresolved: info!
    x.count_ones();
    let z = compute();
         // ^ unresolved: compute
    z.relabel();
 // ^ calls: demo::model::Item::relabel (unique-name)
    z.frobnicate();
 // ^ unresolved: frobnicate
}
