//go:build unix

package job

import "syscall"

// workerPoolProcAttr puts the worker pool in a process group of its own,
// with the workers it starts.
func workerPoolProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group whose leader is pid.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
