// A Swift package laid out as SwiftPM's are (Sources/Shop, Tests/ShopTests): a module's files
// see each other without imports (`import` names another module: external); a protocol and
// its conforming class (IMPLEMENTS, dispatch), a struct, a class inheriting a method, an
// initialiser, `Cart(...)` constructing, an extension whose method is found on its type,
// `self`, a top-level function, `print` from the standard library.
// exact: calls, imports, references, extends, implements
// path: Sources/Shop/Cart.swift
class Base {
   // ^ defines: Base class
    let repo: Repo
     // ^ defines: Base.repo property
    init(repo: Repo) { self.repo = repo }
    func log(_ m: String) { print(m) }
      // ^ defines: Base.log method
}

final class Cart: Base {
         // ^ defines: Cart class
               // ^ extends: Base
    var items: [Order] = []
     // ^ defines: Cart.items property

    func add(_ o: Order) {
      // ^ defines: Cart.add method
        repo.save(o)
     // ^ calls: MemRepo.save (dispatch)
     // ^ calls: Repo.save (local-type)
        self.log("added")
     // ^ calls: Base.log (inheritance)
        let c = Cart(repo: MemRepo())
                        // ^ calls: MemRepo (scope)
             // ^ calls: Sources/Shop/Cart.swift::Cart (scope)
        c.total()
     // ^ calls: Cart.total (local-type)
        helper(1)
     // ^ calls: helper (scope)
    }
}

extension Cart {
       // ^ defines: Cart class
    func total() -> Int { return items.count }
      // ^ defines: Cart.total method
}

func helper(_ x: Int) -> Int { return x }
  // ^ defines: helper function
// path: Sources/Shop/Models.swift
import Foundation
    // ^ imports: <external>::Foundation

protocol Repo {
      // ^ defines: Repo interface
    func save(_ o: Order)
      // ^ defines: Repo.save method
}

struct Order {
    // ^ defines: Order struct
    let id: Int
     // ^ defines: Order.id property
    func describe() -> String { return "order" }
      // ^ defines: Order.describe method
}

class MemRepo: Repo {
   // ^ defines: MemRepo class
            // ^ implements: Repo
    func save(_ o: Order) {}
      // ^ defines: MemRepo.save method
}
// path: Tests/ShopTests/CartTests.swift
import XCTest
    // ^ imports: <external>::XCTest

final class CartTests: XCTestCase {
         // ^ defines: CartTests class
    func testAdd() {
      // ^ defines: CartTests.testAdd method
        let cart = Cart(repo: MemRepo())
                           // ^ calls: MemRepo (scope)
                // ^ calls: Sources/Shop/Cart.swift::Cart (scope)
        cart.add(Order(id: 1))
     // ^ calls: Cart.add (local-type)
              // ^ calls: Order (scope)
    }
}
