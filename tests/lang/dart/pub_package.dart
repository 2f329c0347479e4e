// A pub package laid out as pub's are (pubspec.yaml, lib/, lib/src/, test/): `package:shop/`
// URIs name lib/ files through pubspec.yaml's name, relative URIs the importer's folder; the
// test imports lib/shop.dart, which exports cart.dart and repo.dart (their names are visible
// through it); `import ... as store` (store.Repo, store.MemRepo()), `show clamp`; a part file
// (`part of`) sharing its library's names (_sum); an extension method found on its type
// (order.total()); elements of a List<Line> (a for-in loop's variable, `.first`) typed Line;
// an abstract class implemented (dispatch to overrides), a mixin (`with`,
// IMPLEMENTS, its method inherited), `super.save`; constructors: `Cart(repo)` (the class and
// its unnamed constructor), named `Order.empty` redirecting to `this(...)`, factory
// `Order.single`, `const Line(3)`; package:test's group/test blocks as test functions named
// by their descriptions, test/setUp/expect belonging to package:test; print is dart:core's;
// a call of a function-typed parameter stays unresolved.
// (Unnamed constructors `Cart.<init>` and tests named with spaces are defined too; the
// harness reads a definition's name at its column, so only their calls are asserted.)
// exact: calls, imports, references, extends, implements
// path: lib/shop.dart
library shop;

export 'src/cart.dart';
         // ^ imports: shop.src.cart
export 'src/repo.dart' show Repo, MemRepo;
         // ^ imports: shop.src.repo
// path: lib/src/cart.dart
import 'package:shop/src/order.dart';
                      // ^ imports: shop.src.order
import 'repo.dart' as store;
     // ^ imports: shop.src.repo
import 'util.dart' show clamp;
     // ^ imports: shop.src.util

class Cart {
   // ^ defines: shop.src.cart.Cart class
  final store.Repo repo;
                // ^ defines: shop.src.cart.Cart.repo property
  final List<Line> _lines = [];
                // ^ defines: shop.src.cart.Cart._lines property

  Cart(this.repo);

  void add(Line l) {
    // ^ defines: shop.src.cart.Cart.add method
    _lines.add(l);
 // ^ calls: <external>::dart.core.List.add (local-type)
  }

  Future<Order> checkout(int id) async {
             // ^ defines: shop.src.cart.Cart.checkout method
    final order = Order.single(id, _lines.first);
               // ^ calls: shop.src.order.Order.single (import)
    await repo.save(order);
       // ^ calls: shop.src.repo.LoggingRepo.save (dispatch)
       // ^ calls: shop.src.repo.MemRepo.save (dispatch)
       // ^ calls: shop.src.repo.Repo.save (local-type)
    final n = clamp(order.total(), 0, 100);
                 // ^ calls: shop.src.order.OrderTotal.total (local-type)
           // ^ calls: shop.src.util.clamp (import)
    print(n);
    return order;
  }

  static Cart memory() => Cart(store.MemRepo());
      // ^ calls: shop.src.cart.Cart (scope)
      // ^ calls: shop.src.cart.Cart.<init> (constructor)
                            // ^ calls: shop.src.repo.MemRepo (import)
           // ^ defines: shop.src.cart.Cart.memory method
}
// path: lib/src/order.dart
part 'order_total.dart';
   // ^ imports: shop.src.order_total

class Order {
   // ^ defines: shop.src.order.Order class
  final int id;
         // ^ defines: shop.src.order.Order.id property
  final List<Line> lines;
                // ^ defines: shop.src.order.Order.lines property
  Order(this.id, this.lines);
  Order.empty(int id) : this(id, []);
// ^ calls: shop.src.order.Order.<init> (self)
// ^ defines: shop.src.order.Order.empty constructor
  factory Order.single(int id, Line l) {
       // ^ defines: shop.src.order.Order.single constructor
    return Order(id, [l]);
        // ^ calls: shop.src.order.Order (scope)
        // ^ calls: shop.src.order.Order.<init> (constructor)
  }
}

class Line {
   // ^ defines: shop.src.order.Line class
  final int price;
         // ^ defines: shop.src.order.Line.price property
  const Line(this.price);
  int cents() => price * 100;
   // ^ defines: shop.src.order.Line.cents method
}
// path: lib/src/order_total.dart
part of 'order.dart';

extension OrderTotal on Order {
       // ^ defines: shop.src.order.OrderTotal extension
  int total() => _sum(lines);
              // ^ calls: shop.src.order._sum (scope)
   // ^ defines: shop.src.order.OrderTotal.total method
  int cents() {
   // ^ defines: shop.src.order.OrderTotal.cents method
    var c = 0;
    for (final l in lines) {
      c += l.cents();
        // ^ calls: shop.src.order.Line.cents (local-type)
    }
    return c;
  }
}

int _sum(List<Line> lines) {
 // ^ defines: shop.src.order._sum function
  var t = 0;
  for (final l in lines) {
    t += l.price;
  }
  return t;
}
// path: lib/src/repo.dart
import 'dart:async';
          // ^ imports: <external>::dart.async

import 'order.dart';
     // ^ imports: shop.src.order

abstract class Repo {
            // ^ defines: shop.src.repo.Repo class
  Future<void> save(Order o);
            // ^ defines: shop.src.repo.Repo.save method
  Order? find(int id);
      // ^ defines: shop.src.repo.Repo.find method
}

class MemRepo implements Repo {
   // ^ defines: shop.src.repo.MemRepo class
                      // ^ implements: shop.src.repo.Repo
  final Map<int, Order> _rows = {};
                     // ^ defines: shop.src.repo.MemRepo._rows property

  @override
  Future<void> save(Order o) async {
            // ^ defines: shop.src.repo.MemRepo.save method
    _rows[o.id] = o;
    _log('saved');
 // ^ calls: shop.src.repo.MemRepo._log (self)
  }

  @override
  Order? find(int id) => _rows[id];
      // ^ defines: shop.src.repo.MemRepo.find method

  void _log(String m) => print(m);
    // ^ defines: shop.src.repo.MemRepo._log method
}

class LoggingRepo extends MemRepo with Audit {
   // ^ defines: shop.src.repo.LoggingRepo class
                       // ^ extends: shop.src.repo.MemRepo
                                    // ^ implements: shop.src.repo.Audit
  @override
  Future<void> save(Order o) {
            // ^ defines: shop.src.repo.LoggingRepo.save method
    record(o.id);
 // ^ calls: shop.src.repo.Audit.record (inheritance)
    return super.save(o);
        // ^ calls: shop.src.repo.MemRepo.save (super)
  }
}

mixin Audit {
   // ^ defines: shop.src.repo.Audit mixin
  final List<int> seen = [];
               // ^ defines: shop.src.repo.Audit.seen property
  void record(int id) => seen.add(id);
                      // ^ calls: <external>::dart.core.List.add (local-type)
    // ^ defines: shop.src.repo.Audit.record method
  // a parameter holding a function: not a library of the one import from outside
  int count(int Function(int) by) => by(seen.length);
                                  // ^ unresolved: by
}
// path: lib/src/util.dart
int clamp(int v, int lo, int hi) => v < lo ? lo : (v > hi ? hi : v);
 // ^ defines: shop.src.util.clamp function

int unused() => 0;
 // ^ defines: shop.src.util.unused function
// path: pubspec.yaml
name: shop
version: 1.0.0
environment:
  sdk: ">=3.0.0 <4.0.0"
dev_dependencies:
  test: ^1.24.0
// path: test/cart_test.dart
import 'package:shop/shop.dart';
             // ^ imports: shop.shop
import 'package:shop/src/order.dart';
                      // ^ imports: shop.src.order
import 'package:test/test.dart';
             // ^ imports: <external>::test

void main() {
  // ^ defines: shop.test.cart_test.main function
  group('Cart', () {
// ^ calls: <external>::test.group (import)
      // ^ defines: shop.test.cart_test.main.Cart function
    late Cart cart;
    setUp(() {
 // ^ calls: <external>::test.setUp (import)
      cart = Cart.memory();
          // ^ calls: shop.src.cart.Cart.memory (import)
    });

    test('checkout saves the order', () async {
 // ^ calls: <external>::test.test (import)
      final repo = MemRepo();
                // ^ calls: shop.src.repo.MemRepo (import)
      final c = Cart(repo);
             // ^ calls: shop.src.cart.Cart (import)
             // ^ calls: shop.src.cart.Cart.<init> (constructor)
      c.add(const Line(3));
   // ^ calls: shop.src.cart.Cart.add (local-type)
               // ^ calls: shop.src.order.Line (import)
               // ^ calls: shop.src.order.Line.<init> (constructor)
      final order = await c.checkout(1);
                       // ^ calls: shop.src.cart.Cart.checkout (local-type)
      expect(repo.find(1), order);
   // ^ calls: <external>::test.expect (import)
          // ^ calls: shop.src.repo.MemRepo.find (local-type)
      expect(order.lines.first.cents(), 300);
                         // ^ calls: shop.src.order.Line.cents (local-type)
    });

    test('empty order totals 0', () {
      expect(Order.empty(2).total(), 0);
   // ^ calls: <external>::test.expect (import)
          // ^ calls: shop.src.order.Order.empty (import)
                         // ^ calls: shop.src.order.OrderTotal.total (local-type)
      cart.add(Line(1));
   // ^ calls: shop.src.cart.Cart.add (local-type)
            // ^ calls: shop.src.order.Line (import)
            // ^ calls: shop.src.order.Line.<init> (constructor)
    });
  });
}
