//go:build !unix

package job

import (
	"os"
	"syscall"
)

func workerPoolProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
