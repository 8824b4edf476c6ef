//go:build gc && !purego

package dispatch

// assembly says this build has the kernels' assembly (see kernels/).
const assembly = true
