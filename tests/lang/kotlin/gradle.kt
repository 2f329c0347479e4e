// A Kotlin project laid out as Gradle's are (src/main/kotlin, src/test/kotlin): packages and
// imports (of a class and of a top-level function), a data class, an interface and its
// implementation (dispatch), a primary constructor whose `val` is a property, a supertype
// constructed in the header (`: Base(repo)`: extends, and its constructor called), `Foo(...)`
// constructing without `new`, a companion object's function called on its class, an object,
// an extension function found on its receiver's type, top-level functions; kotlin.* external.
// exact: calls, imports, references, extends, implements
// path: src/main/kotlin/com/acme/model/Order.kt
package com.acme.model

data class Order(val id: Int, val total: Double) {
        // ^ defines: com.acme.model.Order class
                  // ^ defines: com.acme.model.Order.id property
                               // ^ defines: com.acme.model.Order.total property
    fun describe(): String = "order $id"
     // ^ defines: com.acme.model.Order.describe method
}

fun orderOf(id: Int): Order = Order(id, 0.0)
                   // ^ calls: com.acme.model.Order (scope)
                   // ^ calls: com.acme.model.Order.<init> (constructor)
 // ^ defines: com.acme.model.orderOf function
// path: src/main/kotlin/com/acme/shop/Cart.kt
package com.acme.shop

import com.acme.model.Order
    // ^ imports: com.acme.model.Order
import com.acme.model.orderOf
    // ^ imports: <external>::com.acme.model.orderOf

interface Repo {
       // ^ defines: com.acme.shop.Repo interface
    fun save(o: Order)
     // ^ defines: com.acme.shop.Repo.save method
}

open class Base(val repo: Repo) {
        // ^ defines: com.acme.shop.Base class
                 // ^ defines: com.acme.shop.Base.repo property
    open fun log(m: String) {
          // ^ defines: com.acme.shop.Base.log method
        println(m)
    }
}

class Cart(repo: Repo) : Base(repo), Comparable<Cart> {
                      // ^ calls: com.acme.shop.Base.<init> (super)
   // ^ defines: com.acme.shop.Cart class
                      // ^ extends: com.acme.shop.Base
                                  // ^ implements: <external>::kotlin.Comparable
    private val items = mutableListOf<Order>()
             // ^ defines: com.acme.shop.Cart.items property

    fun add(o: Order) {
     // ^ defines: com.acme.shop.Cart.add method
        items.add(o)
     // ^ unresolved: add
        repo.save(o)
     // ^ calls: com.acme.shop.MemRepo.save (dispatch)
     // ^ calls: com.acme.shop.Repo.save (local-type)
        this.log("added")
     // ^ calls: com.acme.shop.Base.log (inheritance)
        val first = orderOf(1)
                 // ^ calls: src/main/kotlin/com/acme/model/Order.kt::orderOf (import)
        first.describe()
     // ^ unresolved: describe
        helper(2)
     // ^ calls: com.acme.shop.helper (scope)
    }

    override fun compareTo(other: Cart): Int = 0
              // ^ defines: com.acme.shop.Cart.compareTo method

    companion object {
        fun build(): Cart = Cart(MemRepo())
                  // ^ calls: com.acme.shop.Cart (scope)
                  // ^ calls: com.acme.shop.Cart.<init> (constructor)
                              // ^ calls: com.acme.shop.MemRepo (scope)
         // ^ defines: com.acme.shop.Cart.build method
    }
}

class MemRepo : Repo {
   // ^ defines: com.acme.shop.MemRepo class
             // ^ implements: com.acme.shop.Repo
    override fun save(o: Order) {}
              // ^ defines: com.acme.shop.MemRepo.save method
}

object Registry {
    // ^ defines: com.acme.shop.Registry object
    fun register(c: Cart) = c.total()
                         // ^ calls: com.acme.shop.total (local-type)
     // ^ defines: com.acme.shop.Registry.register method
}

fun Cart.total(): Int = 0
 // ^ defines: com.acme.shop.total function

fun helper(x: Int) = x
 // ^ defines: com.acme.shop.helper function
// path: src/test/kotlin/com/acme/shop/CartTest.kt
package com.acme.shop

import org.junit.jupiter.api.Test
    // ^ imports: <external>::org.junit.jupiter.api.Test

class CartTest {
   // ^ defines: com.acme.shop.CartTest class
    @Test
    fun addsAnOrder() {
        val cart = Cart.build()
                // ^ calls: com.acme.shop.Cart.build (scope)
        cart.add(com.acme.model.Order(1, 2.0))
              // ^ calls: com.acme.model.Order (import)
              // ^ calls: com.acme.model.Order.<init> (constructor)
     // ^ calls: com.acme.shop.Cart.add (local-type)
        Registry.register(cart)
     // ^ calls: com.acme.shop.Registry.register (scope)
    }
}
