//go:build linux || darwin

package guard

import "syscall"

func slices(n int) (front, back []byte, release func(), ok bool) {
	page := syscall.Getpagesize()
	data := (n + page - 1) / page * page
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
	front = mem[page : page+n : page+n]
	back = mem[page+data-n : page+data : page+data]
	return front, back, func() { syscall.Munmap(mem) }, true
}
