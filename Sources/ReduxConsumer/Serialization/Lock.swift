#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A mutex around a value: the only way in is `withLock`.
///
/// `package`, not public: the package's other modules (the test store, the demo, the tests) use
/// this one reviewed lock instead of keeping copies of it. Copies of a `Lock` share one mutex and
/// one value.
///
/// Built on `pthread_mutex_t` rather than `Synchronization.Mutex` because ThreadSanitizer on Linux
/// understands pthread mutexes (it reports false races for `Mutex`) and because it needs no
/// macOS 15 / iOS 18 availability. The mutex lives in the same allocation as the value. Never
/// call user code inside `withLock`. For waiting on a condition, see ``ConditionLock``.
package struct Lock<Value>: @unchecked Sendable {
    // @unchecked: the value is only reached inside `withLock`, which holds the mutex.
    private let storage: LockStorage<Value>

    package init(_ value: Value) {
        storage = LockStorage.make(value)
    }

    /// Runs `body` with exclusive access to the protected value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            lockMutex(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// A mutex and a condition variable around a value: ``withLock(_:)``, plus waiting until the
/// value satisfies a condition, woken by ``broadcast()``.
///
/// It can also hold words of its owner's in its allocation (see ``init(_:trailingWords:)``).
package struct ConditionLock<Value>: @unchecked Sendable {
    // @unchecked: the value is only reached inside `withLock`, which holds the mutex.
    private let storage: ConditionLockStorage<Value>

    /// A lock around `value`, whose allocation also holds `trailingWords` words, all zero, for the
    /// owner's own use (see ``trailingWords``).
    package init(_ value: Value, trailingWords: Int = 0) {
        storage = ConditionLockStorage.make(value, trailingWords: trailingWords)
    }

    /// The words asked for at creation: the lock does not guard them (its owner reaches them with
    /// atomics, for instance); the pointer is valid as long as a copy of the lock lives.
    package var trailingWords: UnsafeMutablePointer<UInt> {
        storage.withUnsafeMutablePointerToElements { $0 + ConditionLockStorage<Value>.primitiveWords }
    }

    /// Runs `body` with exclusive access to the protected value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, words in
            let primitives = ConditionLockStorage<Value>.primitives(words)
            lockMutex(&primitives.pointee.mutex)
            defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
            return try body(&value.pointee)
        }
    }

    /// Waits until `isReady` holds for the protected value, then runs `body`, all under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    package func withLock<Result>(
        waitingUntil isReady: (Value) -> Bool,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, words in
            let primitives = ConditionLockStorage<Value>.primitives(words)
            lockMutex(&primitives.pointee.mutex)
            defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
            while !isReady(value.pointee) {
                pthread_cond_wait(&primitives.pointee.condition, &primitives.pointee.mutex)
            }
            return try body(&value.pointee)
        }
    }

    /// Waits until `isReady` holds or `deadline` has passed, whichever comes first, then runs `body`
    /// under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    package func withLock<Result>(
        waitingUntil isReady: (Value) -> Bool,
        deadline: Deadline,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, words in
            let primitives = ConditionLockStorage<Value>.primitives(words)
            lockMutex(&primitives.pointee.mutex)
            defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
            var time = deadline.time
            while !isReady(value.pointee) {
                if pthread_cond_timedwait(&primitives.pointee.condition, &primitives.pointee.mutex, &time)
                    == ETIMEDOUT
                {
                    break
                }
            }
            return try body(&value.pointee)
        }
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:_:)`` so it checks its condition again.
    package func broadcast() {
        storage.withUnsafeMutablePointerToElements { words in
            _ = pthread_cond_broadcast(&ConditionLockStorage<Value>.primitives(words).pointee.condition)
        }
    }
}

/// A condition lock's mutex and condition variable, side by side in its allocation.
package struct ConditionPrimitives {
    var mutex = pthread_mutex_t()
    var condition = pthread_cond_t()
}

/// The one allocation of a lock: the value as the header, the mutex as the single element
/// (tail-allocated, so its address is stable, as pthread requires).
private final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    static func make(_ value: Value) -> LockStorage {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` allocates an instance of the class it is called on: this one.
        let storage = unsafeDowncast(buffer, to: LockStorage.self)
        storage.withUnsafeMutablePointerToElements { initializeMutex($0) }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}

/// The one allocation of a condition lock: the value as the header, then words holding the
/// primitives (tail-allocated, so their address is stable, as pthread requires), then the owner's
/// trailing words.
private final class ConditionLockStorage<Value>: ManagedBuffer<Value, UInt> {
    /// The words the primitives take, at the start of the elements.
    static var primitiveWords: Int {
        (MemoryLayout<ConditionPrimitives>.size + MemoryLayout<UInt>.size - 1) / MemoryLayout<UInt>.size
    }

    static func make(_ value: Value, trailingWords: Int) -> ConditionLockStorage {
        let buffer = create(minimumCapacity: primitiveWords + trailingWords) { _ in value }
        // `create` allocates an instance of the class it is called on: this one.
        let storage = unsafeDowncast(buffer, to: ConditionLockStorage.self)
        assert(MemoryLayout<ConditionPrimitives>.alignment <= MemoryLayout<UInt>.alignment)
        storage.withUnsafeMutablePointerToElements { words in
            // Rebound once, here, before any use: the primitives' words are only ever reached as
            // `ConditionPrimitives` (word-aligned, like the elements), the rest as words
            // (`ConditionLockTests` fails if the words overlapped the primitives or the value).
            let primitives = UnsafeMutableRawPointer(words).bindMemory(to: ConditionPrimitives.self, capacity: 1)
            primitives.initialize(to: ConditionPrimitives())
            initializeMutex(&primitives.pointee.mutex)
            let result = pthread_cond_init(&primitives.pointee.condition, nil)
            precondition(result == 0, "pthread_cond_init failed with \(result)")
            (words + primitiveWords).initialize(repeating: 0, count: trailingWords)
        }
        return storage
    }

    /// The primitives at the start of `words`, the storage's elements.
    @inline(__always)
    static func primitives(_ words: UnsafeMutablePointer<UInt>) -> UnsafeMutablePointer<ConditionPrimitives> {
        UnsafeMutableRawPointer(words).assumingMemoryBound(to: ConditionPrimitives.self)
    }

    deinit {
        withUnsafeMutablePointerToElements { words in
            let primitives = Self.primitives(words)
            pthread_cond_destroy(&primitives.pointee.condition)
            pthread_mutex_destroy(&primitives.pointee.mutex)
            primitives.deinitialize(count: 1)
        }
    }
}

/// Initialises `mutex`; in debug builds an error-checking one, which reports a nested `withLock`
/// on the same lock (an overlapping access) instead of hanging.
private func initializeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    mutex.initialize(to: pthread_mutex_t())
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    defer { pthread_mutexattr_destroy(&attributes) }
    #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
    #elseif canImport(Glibc)
        // Spins briefly before sleeping: the library's critical sections are a few moves, so a
        // contended lock is usually free again sooner than a sleep and a wake-up take.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
    #endif
    let result = pthread_mutex_init(mutex, &attributes)
    precondition(result == 0, "pthread_mutex_init failed with \(result)")
}

@inline(__always)
private func lockMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    let result = pthread_mutex_lock(mutex)
    assert(result == 0, "Lock: the same thread took a lock it already holds (nested withLock)")
}
