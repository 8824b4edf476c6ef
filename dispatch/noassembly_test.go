//go:build !gc || purego

package dispatch

const assembly = false
