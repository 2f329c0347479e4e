// Java: dispatch follows the receiver's static type.
// (was test_lang_java.py: test_dispatch_follows_the_receivers_static_type)
//
// test_dispatch_follows_the_receivers_static_type:
//   a.run() is Op.run found through A; of the implementations only A's subtypes can run
// exact: calls, imports, references, extends, implements
// path: p/Ops.java
package p;
interface Op { void run(); }
abstract class A implements Op {}
                         // ^ implements: p.Op
                         // ^ references: p.Op (scope)
class B extends A { public void run() {} }
             // ^ extends: p.A
             // ^ references: p.A (scope)
class C implements Op { public void run() {} }
                // ^ implements: p.Op
                // ^ references: p.Op (scope)
class Use {
    void viaA(A a) { a.run(); }
                  // ^ calls: p.B.run (dispatch)
                  // ^ calls: p.Op.run (local-type)
           // ^ references: p.A (scope)
    void viaOp(Op op) { op.run(); }
                     // ^ calls: p.B.run (dispatch)
                     // ^ calls: p.C.run (dispatch)
                     // ^ calls: p.Op.run (local-type)
            // ^ references: p.Op (scope)
}
