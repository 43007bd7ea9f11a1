// Package order publishes a value to another thread with release ordering
// and nothing more. sync/atomic's stores are sequentially consistent: on
// amd64 an XCHG, which also waits for every earlier store to reach the
// cache. vpi.Pipe.Push publishes each frame after writing it into lines
// the pipe thread last held, and that wait stalled it for as long as the
// pipe thread, waiting for the frame, kept reading the counter's line.
package order

// StoreRelease stores v at p; every write before it is visible to a thread
// that sees v. On amd64 a plain store does that: stores become visible in
// program order, and being a call keeps the compiler from moving writes
// past it.
//
//go:noescape
func StoreRelease(p *uint64, v uint64)
