//! Shape ops: broadcast, transpose, join, split and the index maps behind them.

use crate::data::{map_vec, row_major_strides, Data, Val};
use crate::error::{RtResult, RuntimeError};

/// For each element of `dst` (row-major), the index of the `src` element it copies, where
/// `src` has the same rank and size-1 dims stretch.
pub fn broadcast_indices(src: &[usize], dst: &[usize]) -> Vec<usize> {
    let sstr = row_major_strides(src);
    let n: usize = dst.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; dst.len()];
    for _ in 0..n {
        let mut s = 0;
        for d in 0..dst.len() {
            if src[d] != 1 {
                s += idx[d] * sstr[d];
            }
        }
        out.push(s);
        for d in (0..dst.len()).rev() {
            idx[d] += 1;
            if idx[d] < dst[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// `tt.broadcast` to `shape`.
pub fn broadcast(v: &Val, shape: &[usize]) -> RtResult<Val> {
    if v.shape == shape {
        return Ok(v.clone());
    }
    if v.shape.len() != shape.len() {
        return Err(RuntimeError::unsupported("a broadcast that changes rank"));
    }
    if v.numel() == 1 {
        return Ok(Val::new(
            shape.to_vec(),
            v.data.repeat_elem(0, shape.iter().product()),
        ));
    }
    let idx = broadcast_indices(&v.shape, shape);
    Ok(Val::new(shape.to_vec(), v.data.gather(&idx)))
}

/// `tt.trans`: result dim `i` is operand dim `order[i]`.
pub fn transpose(v: &Val, order: &[u32]) -> Val {
    let sstr = row_major_strides(&v.shape);
    let dst: Vec<usize> = order.iter().map(|&o| v.shape[o as usize]).collect();
    let n = v.numel();
    let mut idx = vec![0usize; dst.len()];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let s: usize = (0..dst.len())
            .map(|d| idx[d] * sstr[order[d] as usize])
            .sum();
        out.push(s);
        for d in (0..dst.len()).rev() {
            idx[d] += 1;
            if idx[d] < dst[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Val::new(dst, v.data.gather(&out))
}

/// `tt.join`: a new minor dim of 2, `a` at index 0 and `b` at index 1.
pub fn join(a: &Val, b: &Val) -> RtResult<Val> {
    let both = a
        .data
        .concat(&b.data)
        .ok_or_else(|| RuntimeError::unsupported("`tt.join` of different types"))?;
    let n = a.numel();
    let idx: Vec<usize> = (0..2 * n).map(|i| (i % 2) * n + i / 2).collect();
    let mut shape = a.shape.clone();
    shape.push(2);
    Ok(Val::new(shape, both.gather(&idx)))
}

/// `tt.split`: the two halves of a minor dim of 2.
pub fn split(v: &Val) -> (Val, Val) {
    let n = v.numel() / 2;
    let lo: Vec<usize> = (0..n).map(|i| 2 * i).collect();
    let hi: Vec<usize> = (0..n).map(|i| 2 * i + 1).collect();
    let shape = v.shape[..v.shape.len() - 1].to_vec();
    (
        Val::new(shape.clone(), v.data.gather(&lo)),
        Val::new(shape, v.data.gather(&hi)),
    )
}

/// Moves `axis` outermost: element `(o, k, i)` of `[outer, n, inner]` goes to
/// `k * (outer * inner) + o * inner + i`. Returns the permuted data and `(outer, n, inner)`.
pub fn axis_major(v: &Val, axis: usize) -> (Data, usize, usize, usize) {
    let outer: usize = v.shape[..axis].iter().product();
    let n = v.shape[axis];
    let inner: usize = v.shape[axis + 1..].iter().product();
    if outer == 1 {
        return (v.data.clone(), outer, n, inner);
    }
    let rows = outer * inner;
    let mut idx = Vec::with_capacity(v.numel());
    for k in 0..n {
        for o in 0..outer {
            for i in 0..inner {
                idx.push(o * n * inner + k * inner + i);
            }
        }
    }
    debug_assert_eq!(idx.len(), rows * n);
    (v.data.gather(&idx), outer, n, inner)
}

/// Inverse of [`axis_major`] for data laid out `[n][outer * inner]`.
pub fn from_axis_major(data: &Data, outer: usize, n: usize, inner: usize) -> Data {
    if outer == 1 {
        return data.clone();
    }
    let rows = outer * inner;
    let mut idx = Vec::with_capacity(rows * n);
    for o in 0..outer {
        for k in 0..n {
            for i in 0..inner {
                idx.push(k * rows + o * inner + i);
            }
        }
    }
    data.gather(&idx)
}

/// Row `k` (a contiguous run of `rows` elements) of axis-major data.
pub fn row(data: &Data, k: usize, rows: usize) -> Data {
    map_vec!(data, v => v[k * rows..(k + 1) * rows].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_and_transpose() {
        let v = Val::new(vec![2, 1], Data::I32(vec![1, 2]));
        let b = broadcast(&v, &[2, 3]).unwrap();
        assert_eq!(b.data, Data::I32(vec![1, 1, 1, 2, 2, 2]));
        let t = transpose(&b, &[1, 0]);
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(t.data, Data::I32(vec![1, 2, 1, 2, 1, 2]));
    }

    #[test]
    fn join_split_round_trip() {
        let a = Val::new(vec![3], Data::I32(vec![1, 2, 3]));
        let b = Val::new(vec![3], Data::I32(vec![4, 5, 6]));
        let j = join(&a, &b).unwrap();
        assert_eq!(j.data, Data::I32(vec![1, 4, 2, 5, 3, 6]));
        let (x, y) = split(&j);
        assert_eq!((x, y), (a, b));
    }

    #[test]
    fn axis_major_round_trip() {
        let v = Val::new(vec![2, 3, 2], Data::I32((0..12).collect()));
        let (d, o, n, i) = axis_major(&v, 1);
        assert_eq!((o, n, i), (2, 3, 2));
        assert_eq!(row(&d, 0, 4), Data::I32(vec![0, 1, 6, 7]));
        assert_eq!(from_axis_major(&d, o, n, i), v.data);
    }
}
