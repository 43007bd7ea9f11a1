//go:build !amd64

// Package order: see order_amd64.go.
package order

import "sync/atomic"

// StoreRelease stores v at p; every write before it is visible to a thread
// that sees v.
func StoreRelease(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
