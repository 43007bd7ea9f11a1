package conn

// Owner is the goroutine that owns a server's model, which is used from
// the goroutine (VPI: the thread) that opened it: every connection's
// requests run on it, one at a time.
type Owner struct {
	calls chan func()
	done  chan error
}

// Own opens the model with open on a goroutine of its own; open returns
// the model's close. If open fails, the goroutine ends and Own returns
// open's error.
func Own(open func() (close func() error, err error)) (*Owner, error) {
	o := &Owner{calls: make(chan func()), done: make(chan error, 1)}
	opened := make(chan error, 1)
	go func() {
		closeModel, err := open()
		opened <- err
		if err != nil {
			return
		}
		for f := range o.calls {
			f()
		}
		o.done <- closeModel()
	}()
	if err := <-opened; err != nil {
		return nil, err
	}
	return o, nil
}

// Do runs f on the owner's goroutine, after the calls given before it,
// and returns when f has.
func (o *Owner) Do(f func()) {
	done := make(chan struct{})
	o.calls <- func() { f(); close(done) }
	<-done
}

// Close lets the calls given to Do finish, closes the model and returns
// its close's error. Nothing may call Do after Close.
func (o *Owner) Close() error {
	close(o.calls)
	return <-o.done
}
