//go:build linux || darwin

package guard

import "syscall"

// grow remaps r with room for at least n bytes, doubling so that a test
// walking up through lengths maps only a few times.
func (r *Region) grow(n int) bool {
	page := syscall.Getpagesize()
	data := page
	if r.mem != nil {
		data = 2 * (len(r.mem) - 2*r.page)
	}
	for data < n {
		data *= 2
	}
	r.Release()
	mem, err := syscall.Mmap(-1, 0, data+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		panic(err)
	}
	if err := syscall.Mprotect(mem[page+data:], syscall.PROT_NONE); err != nil {
		panic(err)
	}
	r.mem, r.page = mem, page
	return true
}

func unmap(mem []byte) { syscall.Munmap(mem) }
