/* graph_attr.c — kernel node attributes: cuGraphKernelNodeGetAttribute/SetAttribute/CopyAttributes. The values are
 * launch attributes (CUlaunchAttributeValue) kept on the node, copied with it (clone, instantiate, exec update) and
 * kept when its parameters change. They are hints here (priorities, access policy, memory sync domains, carveout),
 * except what a launch cannot honour: a cooperative launch, clusters of more than one block and device-updatable
 * nodes answer CUDA_ERROR_NOT_SUPPORTED, as cuLaunchKernelEx does. A cluster dimension set on a node is passed to
 * the launch (graph_exec.c).
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static int kernel_node_attr_valid(CUkernelNodeAttrID id)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        return 1;
    default:
        return 0;
    }
}

static CUresult check_value(CUkernelNodeAttrID id, const CUkernelNodeAttrValue *v)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        return p2n_drv_check_access_policy_window(&v->accessPolicyWindow);
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:   /* grid-wide sync where the backend has it (COOPERATIVE_LAUNCH) */
        return v->cooperative && !p2n_drv.dev.cooperative_launch ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
        uint64_t blocks = (uint64_t)v->clusterDim.x * v->clusterDim.y * v->clusterDim.z;
        if (!blocks)
            return CUDA_ERROR_INVALID_VALUE;
        return blocks > 1 ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;       /* clusters of one block only */
    }
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
        return v->deviceUpdatableKernelNode.deviceUpdatable ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return (unsigned)v->memSyncDomain <= CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE ? CUDA_SUCCESS
                                                                          : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_SUCCESS;
    }
}

static CUresult kernel_node(CUgraphNode h, p2n_graph_node **out)
{
    CUresult r = p2n_drv_graph_node_get(h, out);
    if (r == CUDA_SUCCESS && (*out)->type != CU_GRAPH_NODE_TYPE_KERNEL)
        r = CUDA_ERROR_INVALID_VALUE;
    return r;
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr, CUkernelNodeAttrValue *value_out)
{
    p2n_graph_node *n;
    CUresult r = kernel_node(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value_out || !kernel_node_attr_valid(attr))
        return CUDA_ERROR_INVALID_VALUE;
    const p2n_kernel_node *k = &n->p.kernel;
    if (k->attrs && (k->attr_set & (1u << attr)))
        *value_out = k->attrs[attr];
    else
        memset(value_out, 0, sizeof *value_out);   /* the default: no attribute */
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       const CUkernelNodeAttrValue *value)
{
    p2n_graph_node *n;
    CUresult r = kernel_node(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value || !kernel_node_attr_valid(attr))
        return CUDA_ERROR_INVALID_VALUE;
    r = check_value(attr, value);
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_graph_kernel_attr(n, attr, value);
}

CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    p2n_graph_node *d, *s;
    CUresult r = kernel_node(dst, &d);
    if (r == CUDA_SUCCESS)
        r = kernel_node(src, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (d == s)
        return CUDA_SUCCESS;
    if (!s->p.kernel.attrs) {
        free(d->p.kernel.attrs);
        d->p.kernel.attrs = NULL;
        d->p.kernel.attr_set = 0;
        return CUDA_SUCCESS;
    }
    if (!d->p.kernel.attrs) {
        d->p.kernel.attrs = calloc(P2N_KNODE_ATTR_SLOTS, sizeof *d->p.kernel.attrs);
        if (!d->p.kernel.attrs)
            return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(d->p.kernel.attrs, s->p.kernel.attrs, P2N_KNODE_ATTR_SLOTS * sizeof *s->p.kernel.attrs);
    d->p.kernel.attr_set = s->p.kernel.attr_set;
    return CUDA_SUCCESS;
}
