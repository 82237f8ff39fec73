# stop 66: a CPU model of agent/run_stretch.cuh's warp walk on branch lead/by-key-stream-in-order (full chunks, 4 or 8
# items a lane; the non-commutative branch), with string concatenation as the functor, checked against the runs of a
# host walk over 3000 random key patterns: `python3 model-nc.py` prints the mismatches (0 at d908d78).
import random
W=32
def op(a,b): return a+b
ID=''
def walk(keys, vals, I, starts_input=True, carry_key=None):
    n=len(keys); assert n % (W*I)==0
    run=ID; heads_seen=0; leading=ID; out={}
    if carry_key is None: carry_key = keys[0]
    first=starts_input
    for base in range(0,n,W*I):
        k=[keys[base+l*I:base+l*I+I] for l in range(W)]
        v=[vals[base+l*I:base+l*I+I] for l in range(W)]
        before=[carry_key]+[k[l-1][I-1] for l in range(1,W)]
        carry_key=k[W-1][I-1]
        h=[[ (before[l]!=k[l][0]) or (first and l==0) ]+[k[l][j-1]!=k[l][j] for j in range(1,I)] for l in range(W)]
        first=False
        anyl=[any(h[l]) for l in range(W)]
        wh=sum(1<<l for l in range(W) if anyl[l])
        if wh==0:
            items=[''.join(v[l]) for l in range(W)]
            run=op(run,''.join(items)); continue
        inn=run
        lead=[ID]*W; tail=[ID]*W
        for l in range(W):
            started=False
            for j in range(I):
                if h[l][j]: started=True; tail[l]=ID
                if started: tail[l]=op(tail[l],v[l][j])
                else: lead[l]=op(lead[l],v[l][j])
        x=[tail[l] if anyl[l] else lead[l] for l in range(W)]
        d=1
        while d<W:
            nx=x[:]
            for l in range(W):
                earlier = x[l-d] if l>=d else x[l]
                upto=(1<<(l+1))-1
                window = upto & ~((1<<(l-d+1))-1) if l>=d else upto
                if l>=d and (wh & window)==0: nx[l]=op(earlier,x[l])
            x=nx; d*=2
        lh=[sum(h[l]) for l in range(W)]
        first_lane=(wh & -wh).bit_length()-1
        for l in range(W):
            bl = x[l-1] if l>0 else ID
            closed = (wh & ((1<<l)-1))!=0
            entering = bl if closed else op(inn,bl)
            if anyl[l]:
                index=heads_seen+sum(lh[:l]); acc=entering
                for j in range(I):
                    if h[l][j]:
                        if index==0: leading=acc
                        else: out[index-1]=acc
                        index+=1; acc=ID
                    acc=op(acc,v[l][j])
        heads_seen+=sum(lh); run=x[W-1]
    trailing=run
    return heads_seen, (leading if heads_seen>0 else trailing), trailing, out
def ref(keys, vals, carry_key):
    pieces=[]; cur=''; prev=carry_key; heads=0
    runs=[]; lead=None
    for i,(kk,vv) in enumerate(zip(keys,vals)):
        if i>0 and kk!=prev or (i==0 and kk!=carry_key):
            if lead is None: lead=cur
            else: runs.append(cur)
            cur=''; heads+=1
        cur+=vv; prev=kk
    if lead is None: lead=cur
    return heads, lead, cur, dict(enumerate(runs))
random.seed(1)
bad=0
for trial in range(3000):
    I=random.choice([4,8]); chunks=random.randint(1,4); n=W*I*chunks
    mean=random.choice([1,2,3,8,40,300,5000])
    keys=[]; kk=random.randint(0,3)
    while len(keys)<n:
        L=random.randint(1,2*mean); keys+= [kk]*L; kk+=1
    keys=keys[:n]
    vals=[chr(65+random.randint(0,25)) for _ in range(n)]
    ck = keys[0] if random.random()<0.5 else keys[0]-1
    got=walk(keys,vals,I,starts_input=False,carry_key=ck)
    want=ref(keys,vals,ck)
    if got!=want: bad+=1
print("trials 3000, mismatches", bad)
