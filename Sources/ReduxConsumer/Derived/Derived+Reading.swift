extension Derived {
    /// The memo of this value in `cache`, made from the state at `state` if there is none (`nil`
    /// for a key path, which is read directly).
    @inlinable
    func memo(_ state: UnsafeMutablePointer<State>, cache: DerivationCache) -> AnyObject? {
        let definition = definition
        guard definition.hasInputs else { return nil }
        return cache.memo(for: definition) { definition.makeMemo(UnsafeMutableRawPointer(state), cache) }
    }

    /// The value for the state at `state`, computed at most once per pass of `cache`.
    ///
    /// - Parameter memo: The memo this read used last time, kept by the caller so it is looked up
    ///   once; set here on the first read, never changed after.
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: inout AnyObject?) -> Value {
        if memo == nil {
            memo = self.memo(state, cache: cache)
        }
        return read(state, cache: cache, memo: memo)
    }

    /// The value of this input of another derived value for the state at `state`.
    ///
    /// - Parameters:
    ///   - inputMemos: The memos of the other value's inputs (see ``DerivedInputsMemo``).
    ///   - index: The index of this input.
    @inlinable @inline(__always)
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, inputMemos: [AnyObject?], at index: Int)
        -> Value
    {
        let offset = definition.storedOffset
        if offset >= 0 {
            return UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self)
        }
        return read(state, cache: cache, memo: inputMemos[index])
    }

    /// The value for the state at `state`, given this value's memo in `cache` (see
    /// ``memo(_:cache:)``; `nil` for a key path).
    @inlinable @inline(__always)
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: AnyObject?) -> Value {
        guard memo != nil else {
            // Only a key path has no memo (see `Definition`).
            return definition.selection.unsafelyUnwrapped.read(state)
        }
        // Unretained: whoever holds `memo` (an evaluation's cell, or the memo of a derived value
        // that reads this one) sets it once and outlives this read, so it cannot be released
        // during it; retaining it would cost twice a plain retain, as the cache's weak reference
        // moves its count to a side table.
        return Unmanaged.passUnretained(memo.unsafelyUnwrapped)._withUnsafeGuaranteedRef { memo in
            // Made by `definition.makeMemo`: a `DerivedInputsMemo<_, Value>` (checked in debug
            // builds).
            let memoised = unsafeDowncast(memo, to: DerivedMemo<Value>.self)
            if memoised.pass != cache.pass {
                definition.refresh(UnsafeMutableRawPointer(state), cache, memo)
            }
            return memoised.output
        }
    }
}
