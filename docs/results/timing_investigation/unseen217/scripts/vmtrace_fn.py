def trace(start, x, y):
    stack, loc = [], [int(x), int(y), 0, 0]; pc = start; ops = []
    while len(ops) < tp.P219_VM_MAX_STEPS:
        w = int(code[pc]); op = w & 0xff; arg = (w - (1 << 32) if w >> 31 else w) >> 8
        pc += 1; name = names[op]; ops.append(name)
        if name == 'HALT': break
        if name in ('PUSH','LOAD','DUP'):
            if len(stack) >= tp.P219_VM_STACK: break
            stack.append(int(arg) if name=='PUSH' else loc[arg] if name=='LOAD' else stack[-1])
        elif name=='STORE': loc[arg]=stack.pop()
        elif name=='POP': stack.pop()
        elif name=='JMP': pc=int(arg)
        elif name=='JZ':
            if stack.pop()==0: pc=int(arg)
        elif name=='JNZ':
            if stack.pop()!=0: pc=int(arg)
        else:
            yy, xx = stack.pop(), stack.pop()
            if name in ('DIV','MOD') and yy==0: break
            q = abs(xx)//abs(yy)*(1 if (xx<0)==(yy<0) else -1) if yy else 0
            r={'ADD':xx+yy,'SUB':xx-yy,'MUL':xx*yy,'DIV':q,'MOD':xx-q*yy,'LT':int(xx<yy),'EQ':int(xx==yy),'AND':xx&yy,'SHR':xx>>yy}[name]
            stack.append(int(np.int64(r).astype(np.int32)))
    return ops
